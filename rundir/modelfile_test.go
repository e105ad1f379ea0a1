package rundir

import (
	"strings"
	"testing"
)

// DecodeModelFile is the one decoder of model.json: an older file's
// "intercept": false is NoIntercept; a bad spec or a feature named twice is
// an error naming what is wrong.
func TestDecodeModelFile(t *testing.T) {
	mf, err := DecodeModelFile([]byte(`{"model": "logistic", "data": "a.csv", "target": "y", "features": ["x1", "x2"], "intercept": false, "split": {"rows": 10, "test_frac": 0.2, "seed": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !mf.NoIntercept || mf.Kind != "logistic" || len(mf.Features) != 2 || mf.Split == nil || mf.Split.Seed != 3 {
		t.Errorf("decoded %+v", mf)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"model": "logistic", "features": ["x", "x"]}`, `"x" named twice`},
		{`{"model": "nosuchmodel"}`, "nosuchmodel"},
		{`{"model": `, "unexpected end"},
	} {
		if _, err := DecodeModelFile([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.json, err, tc.want)
		}
	}
}
