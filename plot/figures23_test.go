package plot

import (
	"bytes"
	"image/png"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
)

// Bands takes its y range from the data and the bands (a fixed range
// squashed narrow bands), BandWidths draws hi − lo, and a colour bar is
// drawn beside tiles.
func TestBandsRangeWidthsAndColorBar(t *testing.T) {
	x := []float64{-1, 0, 1}
	mean := [][]float64{{0.5, 0.6, 0.7}}
	lo := [][]float64{{0.49, 0.58, 0.69}}
	hi := [][]float64{{0.51, 0.62, 0.71}}
	p, err := Bands("b", x, []string{"a"}, mean, lo, hi, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min > 0.49 || p.Y.Min < 0.4 || p.Y.Max < 0.71 || p.Y.Max > 1 {
		t.Errorf("y range [%g, %g]: want it to hold the bands [0.49, 0.71] closely", p.Y.Min, p.Y.Max)
	}
	w, err := BandWidths("w", x, []string{"a"}, lo, hi, [2]float64{-0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if w.Y.Max < 0.04 || w.Y.Max > 0.1 {
		t.Errorf("width axis up to %g: want room above the widest band, 0.04", w.Y.Max)
	}
	if _, err := BandWidths("w", x, []string{"a", "b"}, lo, hi, [2]float64{}); err == nil {
		t.Error("two names for one band: no error")
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-1)
	cm.SetMax(1)
	b, err := EncodeTilesBar([][]*gplot.Plot{{p, w}}, ColorBar(cm, "value"), Width, Height, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// The colour bar: the blue end of the map in the right tenth.
	var coloured int
	for x := img.Bounds().Max.X * 9 / 10; x < img.Bounds().Max.X; x++ {
		for y := 0; y < img.Bounds().Max.Y; y++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 200 && b>>8 > 150 && g>>8 < 150 { // blue end of the bar
				coloured++
			}
		}
	}
	if coloured < 50 {
		t.Errorf("%d blue pixels in the right tenth of the canvas: no colour bar", coloured)
	}
}
