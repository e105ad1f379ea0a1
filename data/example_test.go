package data_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/langevin-go/langevin/data"
)

func ExampleParseCSV() {
	// A semicolon-separated file with a quoted header, as in the UCI wine
	// quality data.
	const in = `"fixed acidity";"volatile acidity";"quality"
7.4;0.7;5
7.8;0.88;5
11.2;0.28;6
`
	d, err := data.ParseCSV(strings.NewReader(in), "wine.csv", data.CSVOptions{Target: "quality"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Len(), d.Dim(), d.Names, d.Target, d.Y)

	// Errors give the position of the problem.
	_, err = data.ParseCSV(strings.NewReader("a,b,c\n1,2,3\n4,abc,6\n"), "bad.csv", data.CSVOptions{})
	fmt.Println(err)
	_, err = data.ParseCSV(strings.NewReader(in), "wine.csv", data.CSVOptions{Target: "foo"})
	fmt.Println(err)

	// Output:
	// 3 2 [fixed acidity volatile acidity] quality [5 5 6]
	// bad.csv:3:2: cannot parse "abc" as a number: column "b" holds numbers (line 2: "2"); a text column holds no numbers
	// wine.csv:1: target column "foo" not found; columns are: fixed acidity, volatile acidity, quality
}

func ExampleAustralian() {
	d := data.Australian()
	counts := map[float64]int{}
	for _, y := range d.Y {
		counts[y]++
	}
	fmt.Println(d.Len(), d.Dim(), d.Target)
	fmt.Println("rejected:", counts[0], "approved:", counts[1])

	// Output:
	// 690 14 class
	// rejected: 383 approved: 307
}

func ExampleTrainTest() {
	d := data.Australian()
	train, test := data.TrainTest(d, 0.2, 1)

	// Standardise with statistics from the training set only.
	s := data.FitScaler(train.X)
	s.Transform(train.X)
	s.Transform(test.X)

	fmt.Println(train.Len(), test.Len())
	// Output:
	// 552 138
}
