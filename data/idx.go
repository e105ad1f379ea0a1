package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// FashionMNISTDir is where Debian's dataset-fashion-mnist package installs
// the Fashion-MNIST IDX files (apt-get install -y dataset-fashion-mnist).
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// FashionMNISTClasses names the ten Fashion-MNIST labels 0–9.
var FashionMNISTClasses = []string{
	"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
}

// FashionMNIST reads the Fashion-MNIST training set (60,000 images) or test
// set (10,000 images) from the IDX files in dir (train-images-idx3-ubyte,
// train-labels-idx1-ubyte, t10k-…), gzip-compressed (.gz) or not. Features
// are the 784 pixel intensities divided by 255, so they lie in [0, 1]; Y holds
// the class labels 0–9 (see FashionMNISTClasses).
func FashionMNIST(dir string, train bool) (*Dataset, error) {
	return fashionMNIST(dir, train, 0)
}

// fashionMNIST is FashionMNIST holding at most maxBytes (if positive) of
// numbers in memory (see readIDX).
func fashionMNIST(dir string, train bool, maxBytes int64) (*Dataset, error) {
	prefix := "t10k"
	if train {
		prefix = "train"
	}
	find := func(base string) string {
		p := filepath.Join(dir, base)
		if _, err := os.Stat(p + ".gz"); err == nil {
			return p + ".gz"
		}
		return p
	}
	d, err := readIDX(find(prefix+"-images-idx3-ubyte"), find(prefix+"-labels-idx1-ubyte"), maxBytes)
	if err != nil {
		return nil, err
	}
	d.Source = "fashion-mnist/" + prefix
	return d, nil
}

// ReadIDX reads an IDX image file (unsigned bytes, 3 dimensions: n×rows×cols)
// and an IDX label file (unsigned bytes, 1 dimension: n), each optionally
// gzip-compressed, into a Dataset with n rows of rows·cols features scaled to
// [0, 1] (byte/255), named px.<row>.<col> (1-based), and the labels as Y.
// This is the format of MNIST and Fashion-MNIST (LeCun et al.).
func ReadIDX(images, labels string) (*Dataset, error) { return readIDX(images, labels, 0) }

// readIDX is ReadIDX bounded as the other readers are (CSVOptions.MaxBytes):
// images whose features (8 bytes each) would take more than maxBytes (if
// positive) are refused from the header, before the data are read, with a
// *ParseError wrapping ErrTooLarge.
func readIDX(images, labels string, maxBytes int64) (*Dataset, error) {
	img, shape, err := readIDXFile(images, 3, maxBytes)
	if err != nil {
		return nil, err
	}
	lab, lshape, err := readIDXFile(labels, 1, maxBytes)
	if err != nil {
		return nil, err
	}
	if lshape[0] != shape[0] {
		return nil, &ParseError{File: labels, Msg: fmt.Sprintf("%d labels, but %s holds %d images: expected one label per image", lshape[0], images, shape[0])}
	}
	n, p := shape[0], shape[1]*shape[2]
	d := &Dataset{Y: make([]float64, n), Names: make([]string, p), Target: "label", Source: images}
	for r := 0; r < shape[1]; r++ {
		for c := 0; c < shape[2]; c++ {
			d.Names[r*shape[2]+c] = "px." + strconv.Itoa(r+1) + "." + strconv.Itoa(c+1)
		}
	}
	if n == 0 || p == 0 {
		d.X = &mat.Dense{}
	} else {
		x := make([]float64, n*p)
		for i, b := range img {
			x[i] = float64(b) / 255
		}
		d.X = mat.NewDense(n, p, x)
	}
	for i, b := range lab {
		d.Y[i] = float64(b)
	}
	return d, nil
}

// readIDXFile reads an unsigned-byte IDX file of the given rank and returns
// its data and dimensions.
func readIDXFile(path string, rank int, maxBytes int64) ([]byte, []int, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return parseIDX(f, path, rank, maxBytes)
}

// parseIDX parses an unsigned-byte IDX stream (gzip-compressed or not) of the
// given rank. Errors are *ParseError values naming the file and the byte
// offset.
func parseIDX(r io.Reader, name string, rank int, maxBytes int64) ([]byte, []int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{File: name, Msg: "gzip: " + errMsg(err), Err: err}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	var head [4]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return nil, nil, idxReadError(name, 0, "the 4-byte IDX magic number", err)
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("byte 0: magic number %#08x: expected an IDX file (0x0000TTRR)", binary.BigEndian.Uint32(head[:]))}
	}
	if head[2] != 0x08 {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("byte 2: element type %#02x: expected 0x08 (unsigned byte)", head[2])}
	}
	if int(head[3]) != rank {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("byte 3: %d dimensions: expected %d", head[3], rank)}
	}
	shape := make([]int, rank)
	size := 1
	for k := range shape {
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, nil, idxReadError(name, 4+4*k, fmt.Sprintf("dimension %d of %d", k+1, rank), err)
		}
		shape[k] = int(binary.BigEndian.Uint32(b[:]))
		if shape[k] > 1<<28 || size > (1<<31)/max(shape[k], 1) {
			return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("byte %d: dimension %d is %d: too large", 4+4*k, k+1, shape[k])}
		}
		size *= shape[k]
	}
	off := 4 + 4*rank
	// Each byte becomes a float64 feature (labels: one float64 each).
	if need := 8 * int64(size); maxBytes > 0 && need > maxBytes {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("dimensions %v would hold %d MiB of numbers in memory, more than the bound of %d MiB", shape, need>>20, maxBytes>>20), Err: ErrTooLarge}
	}
	// Grow the buffer as the data come, so that a header announcing more
	// than the file holds costs no more memory than the file.
	var data bytes.Buffer
	data.Grow(min(size, 1<<20))
	if n, err := io.CopyN(&data, br, int64(size)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, idxReadError(name, off+int(n), fmt.Sprintf("%d data bytes (dimensions %v)", size, shape), err)
	}
	buf := data.Bytes()
	if _, err := br.ReadByte(); err == nil {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("byte %d: data continue after the %d bytes that dimensions %v describe", off+size, size, shape)}
	} else if err != io.EOF {
		return nil, nil, idxReadError(name, off+size, "end of file", err)
	}
	return buf, shape, nil
}

func idxReadError(name string, off int, want string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &ParseError{File: name, Msg: fmt.Sprintf("byte %d: file ends early: expected %s", off, want), Err: err}
	}
	return &ParseError{File: name, Msg: fmt.Sprintf("byte %d: %s", off, errMsg(err)), Err: err}
}
