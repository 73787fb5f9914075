package solver

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Wind is a deterministic wind field: a mean velocity whose strength varies
// in time (gusts) and in space (turbulence), given by direction, strength
// and gusts, with phases drawn from Seed.
type Wind struct {
	// Velocity is the mean wind velocity [m/s]; zero means no wind.
	Velocity vec.Vec3
	// Gust is the relative amplitude of the gusts: the strength varies
	// between about (1-Gust) and (1+Gust) times the mean.
	Gust float64
	// GustPeriod is the typical period of a gust [s]; 0 means 2 s.
	GustPeriod float64
	// Turbulence is the amplitude of the spatial variation relative to the
	// mean speed, in any direction.
	Turbulence float64
	// TurbulenceScale is the length scale of the turbulence [m]; 0 means 1 m.
	TurbulenceScale float64
	// Seed selects the gust and turbulence phases.
	Seed uint64
}

// splitmix64 is a small deterministic hash (Steele, Lea, Flood 2014).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit returns a deterministic number in [0, 1) from the seed and index.
func unit(seed uint64, i int) float64 {
	return float64(splitmix64(seed^uint64(i)*0x2545f4914f6cdd1d)>>11) / (1 << 53)
}

// gustFactor returns the wind strength multiplier at time t [s]: three
// sinusoids of incommensurate frequency and seeded phase.
func (w *Wind) gustFactor(t float64) float64 {
	if w.Gust == 0 {
		return 1
	}
	period := w.GustPeriod
	if period <= 0 {
		period = 2
	}
	freq := [3]float64{1, 2.31, 4.17}
	amp := [3]float64{0.6, 0.3, 0.1}
	g := 0.0
	for k := range freq {
		g += amp[k] * math.Sin(2*math.Pi*(freq[k]*t/period+unit(w.Seed, k)))
	}
	return 1 + w.Gust*g
}

// At returns the wind velocity [m/s] at point p [m] and time t [s].
func (w *Wind) At(p vec.Vec3, t float64) vec.Vec3 {
	v := w.Velocity.Scale(w.gustFactor(t))
	if w.Turbulence == 0 {
		return v
	}
	scale := w.TurbulenceScale
	if scale <= 0 {
		scale = 1
	}
	speed := w.Velocity.Len()
	// three travelling waves, one per component, with seeded directions
	var d [3]float64
	for c := 0; c < 3; c++ {
		k := vec.V(unit(w.Seed, 10+4*c)-0.5, unit(w.Seed, 11+4*c)-0.5, unit(w.Seed, 12+4*c)-0.5).Normalize()
		ph := p.Dot(k)*2*math.Pi/scale - t*2*math.Pi*speed/scale + 2*math.Pi*unit(w.Seed, 13+4*c)
		d[c] = math.Sin(ph)
	}
	return v.Add(vec.V(d[0], d[1], d[2]).Scale(w.Turbulence * speed))
}

// active reports whether the wind is non-zero.
func (w *Wind) active() bool { return w.Velocity != (vec.Vec3{}) }

// aeroForce returns the aerodynamic force [N] on triangle (x0, x1, x2)
// moving with mean velocity v in air moving at wind, the usual
// per-triangle aerodynamic model of mass-spring cloth,
// F = k·A·(n·(wind-v))·n, along the unit normal n and scaled by the
// triangle's current area A. With N = (x1-x0)×(x2-x0), |N| = 2A, so
// F = k·(N·u)·N/(2|N|).
func aeroForce(x0, x1, x2, v, wind vec.Vec3, k float64) vec.Vec3 {
	n := x1.Sub(x0).Cross(x2.Sub(x0))
	l := n.Len()
	if l == 0 {
		return vec.Vec3{}
	}
	u := wind.Sub(v)
	return n.Scale(k * n.Dot(u) / (2 * l))
}
