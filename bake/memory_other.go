//go:build !linux

package bake

// processMemoryLimits returns no limits where drape cannot read them:
// the budget is the share of physical memory, or --max-memory.
func processMemoryLimits() []memoryLimit { return nil }
