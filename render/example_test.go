package render_test

import (
	"bytes"
	"fmt"
	"image"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/render"
)

// Example renders the frames of a (tiny) bake with one camera framing all
// of them, then packs them into a contact sheet and an animated GIF, as
// `drape preview` does.
func Example() {
	// two frames of a 2 x 2 m square cloth falling from 2 m to 1 m
	tris := [][3]int32{{0, 2, 1}, {1, 2, 3}}
	square := func(y float64) []vec.Vec3 {
		return []vec.Vec3{{X: -1, Y: y, Z: -1}, {X: 1, Y: y, Z: -1}, {X: -1, Y: y, Z: 1}, {X: 1, Y: y, Z: 1}}
	}
	frames := [][]vec.Vec3{square(2), square(1)}

	// one camera and one ground height for the whole bake
	lo, hi, _ := render.Bounds(frames[0])
	for _, f := range frames[1:] {
		a, b, _ := render.Bounds(f)
		lo, hi = lo.Min(a), hi.Max(b)
	}
	const w, h = 160, 120
	cam := render.AutoCamera(lo, hi, float64(w)/h)

	r := render.NewRenderer() // reused: no allocation per frame
	var images []*image.RGBA
	for _, pos := range frames {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		s := &render.Scene{
			Cloth:   render.Surface{Positions: pos, Triangles: tris}, // default red / sand
			Ground:  true,
			GroundY: lo.Y,
		}
		r.Render(img, cam, s, render.Options{Supersample: 2})
		images = append(images, img)
	}

	sheet := render.ContactSheet(images, []string{"frame 0", "frame 1"}, 2)
	fmt.Println("sheet", sheet.Rect.Dx(), "x", sheet.Rect.Dy())

	var gif bytes.Buffer
	if err := render.EncodeGIF(&gif, images, 24); err != nil {
		fmt.Println(err)
	}
	fmt.Println("gif ok:", gif.Len() > 0)
	// Output:
	// sheet 320 x 120
	// gif ok: true
}
