package main

import "strconv"

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
func itoa(i int) string     { return strconv.Itoa(i) }
