package bake

import (
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver"
)

// windField is the scene's wind: the solver's gusty, turbulent field whose
// mean speed follows the scene's keys.
type windField struct {
	spec WindSpec
	dir  vec.Vec3
	seed uint64
}

func newWindField(w *WindSpec, seed int64) *windField {
	return &windField{spec: *w, dir: vec.V(w.Direction[0], w.Direction[1], w.Direction[2]).Normalize(), seed: uint64(seed)}
}

// speed returns the keyed mean speed at time t [s], linear between keys and
// held outside them.
func (f *windField) speed(t float64) float64 {
	k := f.spec.Keys
	if len(k) == 0 {
		return f.spec.Speed
	}
	if t <= k[0].Time {
		return k[0].Speed
	}
	for i := 1; i < len(k); i++ {
		if t <= k[i].Time {
			a := (t - k[i-1].Time) / (k[i].Time - k[i-1].Time)
			return k[i-1].Speed + a*(k[i].Speed-k[i-1].Speed)
		}
	}
	return k[len(k)-1].Speed
}

// at returns the solver's wind for the frame starting at time t [s].
func (f *windField) at(t float64) solver.Wind {
	return solver.Wind{
		Velocity:   f.dir.Scale(f.speed(t)),
		Gust:       f.spec.Gust,
		GustPeriod: f.spec.GustPeriod,
		Turbulence: f.spec.Turbulence,
		Seed:       f.seed,
	}
}
