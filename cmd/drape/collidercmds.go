package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

func collidersCommand() *cli.Command {
	return &cli.Command{
		Name:  "colliders",
		Usage: "list the collider kinds with their scene keys, flag syntax and fitting",
		Description: `Every kind can be given in a scene file ("colliders": [{"type": KIND, ...}], see docs/scene.md)
or with --collider KIND:VALUES, and fitted to a mesh with drape fit-collider.

Examples:
   drape colliders
   drape colliders --json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
		Action: func(c *cli.Context) error {
			all := bake.ColliderKindInfos()
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(all)
			}
			tw := tabwriter.NewWriter(c.App.Writer, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "kind\tflag\tscene keys\tfitted to a mesh")
			for _, k := range all {
				var keys []string
				for _, ck := range k.Keys {
					s := ck.Key
					if !ck.Required {
						s += "?"
					}
					keys = append(keys, s)
				}
				fmt.Fprintf(tw, "%s\t--collider %s\t%s\t%s\n", k.Kind, k.Flag, strings.Join(keys, " "), k.Fit)
			}
			tw.Flush()
			fmt.Fprintln(c.App.Writer, "\n? marks an optional key. Every collider also takes name, friction, thickness and keys.")
			return nil
		},
	}
}

func fitColliderCommand() *cli.Command {
	return &cli.Command{
		Name:      "fit-collider",
		Usage:     "fit a collider kind to a mesh file and print its scene entry",
		ArgsUsage: "KIND MESH",
		Description: `Fits KIND (see drape colliders) to every vertex of MESH in the file's own space, as a bake fits a
glTF collider node, and prints the collider's scene entry as one JSON object (with or without --json).

Examples:
   drape fit-collider capsule arm.obj
   drape fit-collider cone leg.obj --up z --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.StringFlag{Name: "up", Value: "y", Usage: "up axis of OBJ/STL input: y or z"},
			&cli.Float64Flag{Name: "scale", Value: 1, Usage: "unit scale (0.01 for cm)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usagef("fit-collider: want KIND and a mesh file, got %d arguments", c.NArg())
			}
			kind, err := bake.ParseColliderKind(c.Args().Get(0))
			if err != nil {
				return usagef("fit-collider: kind %q: %v", c.Args().Get(0), err)
			}
			opt := bake.DefaultInspectOptions()
			if opt.Up, err = bake.ParseAxis(c.String("up")); err != nil {
				return usagef("--up %q: %v", c.String("up"), err)
			}
			opt.Scale = c.Float64("scale")
			if !(opt.Scale > 0) {
				return usagef("--scale %g: must be > 0", opt.Scale)
			}
			spec, err := bake.FitCollider(kind, c.Args().Get(1), opt)
			if err != nil {
				return err
			}
			return json.NewEncoder(c.App.Writer).Encode(spec)
		},
	}
}
