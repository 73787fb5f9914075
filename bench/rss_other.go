//go:build !unix

package main

import "os"

// rssMeasured reports whether peakRSS measures anything on this system:
// not here (Windows has no getrusage; the table prints "-").
const rssMeasured = false

// peakRSS returns 0: peak RSS is not measured on this system.
func peakRSS(*os.ProcessState) float64 { return 0 }
