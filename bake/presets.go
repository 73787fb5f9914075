package bake

import "sort"

// Fabric is a cloth material in physical units.
type Fabric struct {
	Name     string  `json:"name"`
	Density  float64 `json:"density"`  // areal density [kg/m²]
	Stretch  float64 `json:"stretch"`  // in-plane tensile stiffness [N/m]
	Shear    float64 `json:"shear"`    // in-plane shear stiffness [N/m]
	Bend     float64 `json:"bend"`     // bending rigidity [N·m]
	Damping  float64 `json:"damping"`  // velocity damping [1/s]
	Drag     float64 `json:"drag"`     // air drag coefficient (dimensionless, per unit area)
	Friction float64 `json:"friction"` // Coulomb friction against colliders
	Source   string  `json:"source"`   // where the numbers come from
	// MaxStrain and LastStrain bound the largest edge strain (length/rest
	// - 1) of a bake in any frame and at its last frame: the quality
	// certificate warns above them (see StrainSource).
	MaxStrain    float64 `json:"max_strain"`
	LastStrain   float64 `json:"last_strain"`
	StrainSource string  `json:"strain_source"` // why the strain bounds are what they are
}

// wovenStrain is the reasoning behind the strain bounds of the woven (and
// leather) presets.
const wovenStrain = "woven cloth (and leather) strains ρ·g·L/stretch under its own weight: 0.015 % at the top of a 1 m cotton curtain (0.05 % wool); " +
	"2 % in any frame and 1 % at rest leave room for impacts and pinned corners and stay below the ~4 % cotton reaches at 500 gf/cm in KES EMT (Kawabata 1980); " +
	"more shows as rubbery hems and swimming textures"

// Unit conversions behind the presets. The Kawabata evaluation system
// (KES-F) reports bending rigidity B in gf·cm²/cm and shear stiffness G in
// gf/(cm·degree); 1 gf·cm²/cm = 9.80665e-5 N·m and 1 gf/(cm·deg) = 56.2 N/m
// per radian.
const (
	gfcm2PerCm = 9.80665e-5
	gfPerCmDeg = 56.19
)

// presets are typical values, not measurements of one bolt of cloth: areal
// densities from common fabric weights (g/m²), bending and shear from KES-F
// ranges for each fabric class (Kawabata 1980; the tables of Kawabata and
// Niwa 1989), tensile stiffness from KES EMT elongation at 500 gf/cm, and for
// rubber and leather from Young's modulus times thickness.
var presets = map[string]Fabric{
	"cotton": {
		Name: "cotton", Density: 0.15, Stretch: 1.0e4, Shear: 0.6 * gfPerCmDeg, Bend: 0.10 * gfcm2PerCm,
		Damping: 0.05, Drag: 1.0, Friction: 0.5,
		Source:    "plain-weave cotton, 150 g/m²; KES-F B ≈ 0.1 gf·cm²/cm, G ≈ 0.6 gf/(cm·deg), EMT ≈ 4 % at 500 gf/cm (Kawabata 1980)",
		MaxStrain: 0.02, LastStrain: 0.01, StrainSource: wovenStrain,
	},
	"silk": {
		Name: "silk", Density: 0.06, Stretch: 5.0e3, Shear: 0.3 * gfPerCmDeg, Bend: 0.015 * gfcm2PerCm,
		Damping: 0.05, Drag: 1.2, Friction: 0.3,
		Source:    "silk charmeuse/habotai, 60 g/m²; KES-F B ≈ 0.015 gf·cm²/cm, G ≈ 0.3 gf/(cm·deg) (Kawabata and Niwa 1989)",
		MaxStrain: 0.02, LastStrain: 0.01, StrainSource: wovenStrain,
	},
	"denim": {
		Name: "denim", Density: 0.40, Stretch: 2.0e4, Shear: 2.0 * gfPerCmDeg, Bend: 1.0 * gfcm2PerCm,
		Damping: 0.05, Drag: 0.9, Friction: 0.6,
		Source:    "12 oz/yd² denim, 400 g/m²; KES-F B ≈ 1 gf·cm²/cm, G ≈ 2 gf/(cm·deg) (Kawabata 1980)",
		MaxStrain: 0.02, LastStrain: 0.01, StrainSource: wovenStrain,
	},
	"leather": {
		Name: "leather", Density: 0.90, Stretch: 3.0e4, Shear: 10 * gfPerCmDeg, Bend: 1.0e-3,
		Damping: 0.1, Drag: 0.8, Friction: 0.6,
		Source:    "1 mm garment leather, ~900 kg/m³; E ≈ 30 MPa (stretch = E·t), bending E·t³/12 ≈ 2.5e-3 N·m softened for suppleness",
		MaxStrain: 0.02, LastStrain: 0.01, StrainSource: wovenStrain,
	},
	"wool": {
		Name: "wool", Density: 0.30, Stretch: 6.0e3, Shear: 0.8 * gfPerCmDeg, Bend: 0.20 * gfcm2PerCm,
		Damping: 0.08, Drag: 1.0, Friction: 0.6,
		Source:    "worsted wool suiting, 300 g/m²; KES-F B ≈ 0.2 gf·cm²/cm, G ≈ 0.8 gf/(cm·deg) (Kawabata and Niwa 1989)",
		MaxStrain: 0.02, LastStrain: 0.01, StrainSource: wovenStrain,
	},
	"rubber": {
		Name: "rubber", Density: 1.1, Stretch: 2.0e3, Shear: 670, Bend: 2.2e-4,
		Damping: 0.1, Drag: 0.8, Friction: 1.0,
		Source:    "1 mm natural rubber sheet, 1100 kg/m³, E ≈ 2 MPa, ν ≈ 0.5: stretch E·t, shear E·t/3, bending E·t³/(12(1-ν²)) (Callister, Materials Science)",
		MaxStrain: 0.042, LastStrain: 0.021,
		StrainSource: "elastic: a 2 m rubber sheet hangs at ρ·g·L/stretch = 1.1 kg/m² · 9.81 m/s² · 2 m / 2000 N/m ≈ 1.1 % under its own weight; " +
			"the woven bounds plus that strain at rest (2.1 %) and twice it in any frame for impacts (4.2 %)",
	},
}

// DefaultPreset is the fabric of a scene that names none.
const DefaultPreset = "cotton"

// LookupPreset returns the named fabric preset.
func LookupPreset(name string) (Fabric, bool) {
	f, ok := presets[name]
	return f, ok
}

// PresetNames returns the preset names in alphabetical order.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve returns the preset of spec with spec's overrides applied.
func (f FabricSpec) Resolve() Fabric {
	return f.resolveOn(presets[DefaultPreset])
}

// resolveOn returns spec's preset, or base when it names none, with spec's
// overrides applied. A stretch override below the preset's raises the
// strain bounds in proportion: under the same load strain goes as
// 1/stretch.
func (f FabricSpec) resolveOn(base Fabric) Fabric {
	fab := base
	if f.Preset != "" {
		fab = presets[f.Preset]
	}
	if f.Stretch != nil && *f.Stretch > 0 && *f.Stretch < fab.Stretch {
		fab.MaxStrain *= fab.Stretch / *f.Stretch
		fab.LastStrain *= fab.Stretch / *f.Stretch
	}
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&fab.Density, f.Density)
	set(&fab.Stretch, f.Stretch)
	set(&fab.Shear, f.Shear)
	set(&fab.Bend, f.Bend)
	set(&fab.Damping, f.Damping)
	set(&fab.Drag, f.Drag)
	set(&fab.Friction, f.Friction)
	return fab
}
