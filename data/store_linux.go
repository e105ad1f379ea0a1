//go:build linux

package data

import "syscall"

// mmap maps the whole file read-only and shared.
func (s *Store) mmap(size int64) error {
	if size == 0 || size != int64(int(size)) {
		return nil // empty, or too large to map here: read with ReadAt
	}
	b, err := syscall.Mmap(int(s.f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	// One page per random read, not its neighbours (fault-around) as well.
	syscall.Madvise(b, syscall.MADV_RANDOM)
	s.mapping, s.data = b, b[s.off:]
	return nil
}

// release hands the pages of data[start:end] that lie wholly inside it back
// to the kernel; they stay in the page cache.
func (s *Store) release(start, end int64) {
	a := (s.off + start + storePage - 1) / storePage * storePage
	b := (s.off + end) / storePage * storePage
	if b > a {
		syscall.Madvise(s.mapping[a:b], syscall.MADV_DONTNEED)
	}
}

func (s *Store) munmap() error {
	if s.mapping == nil {
		return nil
	}
	b := s.mapping
	s.mapping, s.data = nil, nil
	return syscall.Munmap(b)
}
