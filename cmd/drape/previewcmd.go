package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

func previewCommand() *cli.Command {
	return &cli.Command{
		Name:      "preview",
		Usage:     "render a baked glTF to a PNG contact sheet or an animated GIF",
		ArgsUsage: "BAKED.glb",
		Description: `Renders the cloth with a CPU rasteriser (perspective camera framed on the cloth, z-buffer,
two-sided Phong shading, ACES tone mapping, shadows) and writes a contact sheet of the chosen frames
(.png) or the whole animation (.gif).

Examples:
   drape preview cloth.glb -o cloth.png --frames 0,40,80,119
   drape preview cloth.glb -o cloth.gif --size 320x240
   drape preview cloth.glb -o sheet.png --scene scene.json --ground`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, Usage: "output `FILE`: .png (contact sheet) or .gif (animation)"},
			&cli.StringFlag{Name: "frames", Usage: "frame numbers to draw, comma-separated (default: 4 spread over the bake; every frame for a GIF)"},
			&cli.StringFlag{Name: "size", Value: "640x480", Usage: "size of each frame, `WxH` pixels"},
			&cli.StringFlag{Name: "scene", Usage: "draw the colliders of this scene file"},
			&cli.BoolFlag{Name: "ground", Value: true, Usage: "draw a ground plane under the lowest point"},
			&cli.IntFlag{Name: "supersample", Value: 1, Usage: "anti-aliasing factor 1..4"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("preview: want one baked .glb/.gltf, got %d arguments", c.NArg())
			}
			opt := bake.PreviewOptions{Scene: c.String("scene"), Ground: c.Bool("ground"), Supersample: c.Int("supersample")}
			if ss := c.Int("supersample"); ss < 1 || ss > 4 {
				return usagef("--supersample %d: must be in 1..4 (each step multiplies the drawing work by its square)", ss)
			}
			w, h, ok := strings.Cut(c.String("size"), "x")
			var err1, err2 error
			opt.Width, err1 = strconv.Atoi(w)
			opt.Height, err2 = strconv.Atoi(h)
			if !ok || err1 != nil || err2 != nil {
				return usagef("--size %q: want WxH, e.g. 640x480", c.String("size"))
			}
			if s := c.String("frames"); s != "" {
				for _, f := range strings.Split(s, ",") {
					k, err := strconv.Atoi(strings.TrimSpace(f))
					if err != nil {
						return usagef("--frames %q: %q is not a frame number", s, f)
					}
					opt.Frames = append(opt.Frames, k)
				}
			}
			if err := bake.Preview(c.Args().First(), c.String("out"), opt); err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, c.String("out"))
			return nil
		},
	}
}
