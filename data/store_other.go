//go:build !linux

package data

// mmap does nothing here: rows are read with ReadAt.
func (s *Store) mmap(size int64) error { return nil }

func (s *Store) release(start, end int64) {}

func (s *Store) munmap() error { return nil }
