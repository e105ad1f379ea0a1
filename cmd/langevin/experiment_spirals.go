package main

import "io"

func init() {
	registerExperiment(experiment{
		name:    "spirals",
		summary: "K interleaved spirals: 2-100-10-K ReLU BNN, categorical likelihood, MAP start, cyclical SGLD, uncertainty on a grid",
		run:     func(args []string, stdout, stderr io.Writer) error { return runToyClassifier("spirals", args, stdout) },
	})
}
