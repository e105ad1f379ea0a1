// Package data provides data sets for the langevin stochastic-gradient
// samplers: readers for delimited text (CSV and friends), LIBSVM and Parquet
// files ([ReadParquet], streamed a block at a time by [OpenParquet]),
// standardisation, seeded train/validation/test splits, an embedded copy of
// the Statlog Australian credit data and a synthetic bivariate-normal
// generator.
//
// # Conventions
//
// A [Dataset] holds n observations of d features. X is the n×d feature
// matrix with one observation per row, and Y holds the n responses (class
// labels such as 0/1 or ±1 are stored as numbers). Names has length d and
// names the columns of X in order. All values are finite: the readers reject
// ±Inf, and NaN is one of the missing-value tokens.
//
// # Typed columns
//
// Delimited text ([ParseCSV]) and Parquet read by [ReadFile] are read as
// tables of typed columns (a Parquet BYTE_ARRAY column is text, a null
// missing): a column
// of numbers is numeric; a column of text is categorical and enters X as
// treatment-coded dummies against its reference level, the first in byte
// order, named "col[level]" ([DummyName]); [CSVOptions].Categorical makes an
// integer-coded column categorical. A text target of two levels is coded 0/1
// (no/yes, false/true, −/+ … map their negative word to 0; other pairs and K
// class labels are numbered in byte order). [CSVOptions].ID names a column
// kept beside the rows ([Dataset].IDs), never a feature; Drop leaves columns
// out; Missing says what a missing value ([MissingTokens]) does: an error
// naming the column and how many rows (wrapping [ErrMissing]), or
// [MissingDrop], rows dropped and counted per column. Every read records its
// rules in a [Coding] ([Dataset].Coding, JSON-ready: a run saves it), and
// reading new rows with CSVOptions.Coding gives the same features in the
// same order, the same dummies and labels; a level the coding does not know
// is an error naming line, column and level, and OptionalTarget reads rows
// without the response (Y nil). [Coding.Features] lists the feature names,
// [Coding.Describe] the rules as lines for a run's output. A formula or a
// grouping factor finds a categorical column's levels in Coding.Columns.
//
// Functions that read data return errors of type [*ParseError]. Line and
// column numbers in a ParseError are 1-based; the column is the field number
// in the row, not a character offset, and is 0 when the error concerns a
// whole line or the whole file. Line numbers count every physical line of the
// (decompressed) input, including the header and blank lines.
//
// Invalid arguments that are programming errors rather than bad input, such
// as fractions that do not sum to one or out-of-range row indices, cause a
// panic, following the conventions of gonum.
//
// Random operations ([Split], [TrainTest], [CorrelatedNormal]) take an
// explicit uint64 seed and use a PCG generator from math/rand/v2. They draw
// only raw 64-bit outputs from the generator and do the rest of the work
// (bounded integers, shuffling, normal deviates) in this package, so results
// for a seed do not depend on the implementation of helpers in math/rand/v2.
//
// # Built-in data
//
// The Statlog (Australian Credit Approval) data set is embedded in the
// package; see [Australian]. Its origin: Quinlan, R. (1987). Statlog
// (Australian Credit Approval). UCI Machine Learning Repository.
// https://doi.org/10.24432/C59012. Licensed under CC BY 4.0. The file
// australian.dat in this directory is the UCI numeric-coded version (690
// rows, 14 features, label in the last column); README.md in this directory
// records where the copy came from and how it was checked.
package data
