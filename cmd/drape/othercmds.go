package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "report a mesh's vertices, welded topology, edges, pieces and size",
		ArgsUsage: "MESH",
		Description: `Examples:
   drape inspect shirt.obj
   drape inspect scene.glb --json
   drape inspect part.stl --up z --scale 0.001`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.StringFlag{Name: "up", Value: "y", Usage: "up axis of OBJ/STL input: y or z"},
			&cli.Float64Flag{Name: "scale", Value: 1, Usage: "unit scale (0.01 for cm)"},
			&cli.Float64Flag{Name: "weld", Usage: "weld tolerance relative to the mesh's size (default 1e-6)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("inspect: want one mesh file, got %d arguments", c.NArg())
			}
			opt := bake.DefaultInspectOptions()
			up, err := bake.ParseAxis(c.String("up"))
			if err != nil {
				return usagef("--up %q: %v", c.String("up"), err)
			}
			opt.Up = up
			opt.Scale = c.Float64("scale")
			if !(opt.Scale > 0) {
				return usagef("--scale %g: must be > 0", opt.Scale)
			}
			if c.IsSet("weld") {
				opt.Weld = c.Float64("weld")
			}
			rep, err := bake.Inspect(c.Args().First(), opt)
			if err != nil {
				return &bake.Error{Code: bake.ExitBadInput, Err: err}
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.WriteText(c.App.Writer)
			return nil
		},
	}
}

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a scene file and its meshes without baking",
		ArgsUsage: "SCENE.json",
		Description: `Reads the scene, every mesh it names and builds the simulation model, reporting the first problem
with the file, the key and the allowed range. Exit code 0 when the scene would bake, 3 when not.

Example:
   drape validate examples/curtain/scene.json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("validate: want one scene file, got %d arguments", c.NArg())
			}
			sc, err := bake.LoadScene(c.Args().First())
			if err == nil {
				var j *bake.Job
				j, err = bake.Prepare(sc, bake.Options{})
				if err == nil {
					regions, seams := len(j.Regions), len(j.Params.Seams)
					closed := len(j.Model.ClosedVolumes(j.Welded.Positions))
					moving := 0 // pins with keys, a cache or a collider to ride on
					for _, p := range j.Model.Pins {
						if p.Motion != nil || p.Track != nil {
							moving++
						}
					}
					if c.Bool("json") {
						return json.NewEncoder(c.App.Writer).Encode(map[string]any{
							"ok": true, "scene": c.Args().First(), "vertices": len(j.Welded.Positions),
							"triangles": len(j.Welded.Triangles), "pinned": len(j.Pins), "colliders": len(j.Colliders),
							"moving_pins": moving, "regions": regions, "seams": seams, "volume_pieces": closed,
							"warnings": j.Warnings,
						})
					}
					extra := ""
					for _, x := range []struct {
						n    int
						what string
					}{{moving, "moving pins"}, {regions, "fabric regions"}, {seams, "seams"}, {closed, "closed pieces holding a volume"}} {
						if x.n > 0 {
							extra += fmt.Sprintf(", %d %s", x.n, x.what)
						}
					}
					fmt.Fprintf(c.App.Writer, "%s: ok (%d vertices, %d triangles, %d pinned, %d colliders%s)\n",
						c.Args().First(), len(j.Welded.Positions), len(j.Welded.Triangles), len(j.Pins), len(j.Colliders), extra)
					for _, w := range j.Warnings {
						fmt.Fprintf(c.App.ErrWriter, "drape: warning: %s\n", w)
					}
					return nil
				}
			}
			if c.Bool("json") {
				json.NewEncoder(c.App.Writer).Encode(map[string]any{"ok": false, "scene": c.Args().First(), "error": err.Error()})
			}
			return err
		},
	}
}

func presetsCommand() *cli.Command {
	return &cli.Command{
		Name:  "presets",
		Usage: "list the fabric presets with their physical values and sources",
		Description: `Every preset can be chosen with --fabric NAME or "fabric": {"preset": NAME} in a scene file, and
overridden field by field in the scene file ("fabric": {"preset": "silk", "bend": 2e-6}).
--json prints {"presets": [...], "defaults": {...}}: the presets and drape's defaults for every setting a
scene may leave out (frames, fps, substeps, the thickness rule, ...), for programs such as the Blender add-on.

Examples:
   drape presets
   drape presets --json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object: the presets and drape's defaults"}},
		Action: func(c *cli.Context) error {
			var all []bake.Fabric
			for _, n := range bake.PresetNames() {
				f, _ := bake.LookupPreset(n)
				all = append(all, f)
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Presets  []bake.Fabric `json:"presets"`
					Defaults bake.Defaults `json:"defaults"`
				}{all, bake.DefaultSettings()})
			}
			tw := tabwriter.NewWriter(c.App.Writer, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "preset\tdensity kg/m²\tstretch N/m\tshear N/m\tbend N·m\tdamping 1/s\tdrag\tfriction\tstrain bound (any/last frame)")
			for _, f := range all {
				fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%.3g\t%.3g\t%.3g\t%.3g\t%.3g\t%.3g %% / %.3g %%\n", f.Name, f.Density, f.Stretch, f.Shear, f.Bend, f.Damping, f.Drag, f.Friction,
					100*f.MaxStrain, 100*f.LastStrain)
			}
			tw.Flush()
			fmt.Fprintln(c.App.Writer, "\nSources:")
			for _, f := range all {
				fmt.Fprintf(c.App.Writer, "  %s: %s\n", f.Name, f.Source)
			}
			// presets sharing a reason are named together, in the table's order
			fmt.Fprintln(c.App.Writer, "\nStrain bounds (the quality certificate warns above them):")
			var reasons []string
			names := map[string][]string{}
			for _, f := range all {
				if names[f.StrainSource] == nil {
					reasons = append(reasons, f.StrainSource)
				}
				names[f.StrainSource] = append(names[f.StrainSource], f.Name)
			}
			for _, r := range reasons {
				fmt.Fprintf(c.App.Writer, "  %s: %s\n", strings.Join(names[r], ", "), r)
			}
			return nil
		},
	}
}
