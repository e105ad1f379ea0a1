//go:build !unix

package budget

// AddressLimit returns 0: no address-space limit is read on this platform.
func AddressLimit() int64 { return 0 }
