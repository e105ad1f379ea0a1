package experiment

import "io"

func init() {
	Register(Experiment{
		Name:    "spirals",
		Summary: "K interleaved spirals: 2-100-10-K ReLU BNN, categorical likelihood, MAP start, cyclical SGLD, uncertainty on a grid",
		Run:     cliRun(func(args []string, stdout, stderr io.Writer) error { return runToyClassifier("spirals", args, stdout) }),
	})
}
