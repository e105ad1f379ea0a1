package model_test

import (
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

func ExampleNewLinear() {
	// Five observations of y ≈ x.
	X := mat.NewDense(5, 1, []float64{1, 2, 3, 4, 5})
	y := []float64{1.1, 1.9, 3.2, 3.9, 5.1}
	m, err := model.NewLinear(X, y, model.LinearOptions{}) // N(0, 100σ²I), σ² ~ IG(1, 1)
	if err != nil {
		log.Fatal(err)
	}
	post := m.Posterior()
	names := langevin.ParamNames(m)
	mean, sd := post.Mean(), post.SD()
	for j, name := range names {
		fmt.Printf("%-10s mean %7.4f  sd %.4f\n", name, mean[j], sd[j])
	}
	fmt.Printf("sigma2     mean %7.4f  sd %.4f\n", post.Sigma2Mean(), post.Sigma2SD())
	w := post.MAP()
	fmt.Printf("MAP: beta.1 = %.4f, sigma2 = %.4f\n", w[1], math.Exp(w[2]))
	// Output:
	// intercept  mean  0.0425  sd 0.6728
	// beta.1     mean  0.9991  sd 0.2030
	// log_sigma2 mean -1.0630  sd 0.5748
	// sigma2     mean  0.4164  sd 0.3400
	// MAP: beta.1 = 0.9991, sigma2 = 0.2313
}

func ExampleNewLogistic() {
	X := mat.NewDense(4, 2, []float64{
		0.5, 1.2,
		-0.3, 0.8,
		1.1, -0.4,
		0.2, 0.1,
	})
	_, err := model.NewLogistic(X, []float64{1, 0, 2, 1}, model.LogisticOptions{})
	fmt.Println(err)

	m, err := model.NewLogistic(X, []float64{1, -1, -1, 1}, model.LogisticOptions{PriorScale: 2.5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(langevin.ParamNames(m))
	p := m.Predict([]float64{0, 1, 0}, X, nil)
	fmt.Printf("%.3f\n", p)
	// Output:
	// row 3: label 2: logistic regression expects labels 0/1 or −1/+1
	// [intercept beta.1 beta.2]
	// [0.622 0.426 0.750 0.550]
}
