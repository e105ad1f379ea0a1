package data

import (
	"errors"
	"strings"
	"testing"
)

// TestNADecimalSep: CSVOptions.NA declares more missing markers ("?" was a
// text cell, so the column became categorical or an error); Decimal ','
// reads "1,5" as 1.5 with ';' between the cells.
func TestNADecimalSep(t *testing.T) {
	const eu = "a;b;y\n1,5;?;0\n2,25;1;1\n3;3;0\n"
	_, err := ParseCSV(strings.NewReader(eu), "eu.csv", CSVOptions{NA: []string{"?"}, Decimal: ','})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), `("?") in column "b"`) {
		t.Fatalf("missing ?: err = %v", err)
	}
	ds, err := ParseCSV(strings.NewReader(eu), "eu.csv", CSVOptions{NA: []string{"?"}, Decimal: ',', Missing: MissingDrop})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.X.At(0, 0) != 2.25 || ds.X.At(1, 0) != 3 || ds.Coding.RowsDropped != 1 {
		t.Errorf("rows %d, a = %v, %v, dropped %d", ds.Len(), ds.X.At(0, 0), ds.X.At(1, 0), ds.Coding.RowsDropped)
	}
	// Without Decimal the same file's first column is text.
	if _, err := ParseCSV(strings.NewReader(eu), "eu.csv", CSVOptions{NA: []string{"?"}, Delimiter: ';', Missing: MissingDrop}); err == nil {
		t.Error("decimal commas read as numbers without Decimal")
	}
	// The usual marks are still missing with NA set; a tab-separated file with NA "-999".
	ds, err = ParseCSV(strings.NewReader("a\tb\ty\n1\t-999\t0\n2\tNA\t1\n3\t4\t0\n"), "t.tsv", CSVOptions{NA: []string{"-999"}, Delimiter: '\t', Missing: MissingDrop})
	if err != nil || ds.Len() != 1 || ds.X.At(0, 1) != 4 {
		t.Errorf("tsv: %v", err)
	}
	if _, err := ParseCSV(strings.NewReader(eu), "eu.csv", CSVOptions{Decimal: ',', Delimiter: ','}); err == nil {
		t.Error("decimal comma with ',' as delimiter accepted")
	}
}
