// Package layering holds the test that the module's imports point down
// only (DESIGN.md, "Arrows point down only"): each package has a layer, and
// a package imports only packages of lower layers. It has no code.
package layering
