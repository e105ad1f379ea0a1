package model

import "github.com/langevin-go/langevin"

var (
	_ langevin.Model        = (*Linear)(nil)
	_ langevin.ParamNamer   = (*Linear)(nil)
	_ langevin.PriorSampler = (*Linear)(nil)
	_ langevin.Deriver      = (*Linear)(nil)

	_ langevin.Model        = (*Logistic)(nil)
	_ langevin.ParamNamer   = (*Logistic)(nil)
	_ langevin.PriorSampler = (*Logistic)(nil)

	_ langevin.Model        = (*LinearFixedNoise)(nil)
	_ langevin.ParamNamer   = (*LinearFixedNoise)(nil)
	_ langevin.PriorSampler = (*LinearFixedNoise)(nil)

	_ langevin.Model      = (*Gaussian)(nil)
	_ langevin.ParamNamer = (*Gaussian)(nil)
)

var (
	_ langevin.Model        = (*Softmax)(nil)
	_ langevin.ParamNamer   = (*Softmax)(nil)
	_ langevin.PriorSampler = (*Softmax)(nil)
	_ langevin.Model        = (*MLP)(nil)
	_ langevin.ParamNamer   = (*MLP)(nil)
	_ langevin.PriorSampler = (*MLP)(nil)
	_ langevin.Deriver      = (*MLP)(nil)
	_ langevin.Initializer  = InitGlorot{}
	_ langevin.Model        = (*Mixture)(nil)
	_ langevin.ParamNamer   = (*Mixture)(nil)
	_ langevin.Model        = NoisyGradient{}
	_ langevin.ParamNamer   = NoisyGradient{}
)
