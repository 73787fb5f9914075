//go:build !unix

package meshio

const openNonblock = 0
