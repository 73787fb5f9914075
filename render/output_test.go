package render

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"math"
	"strings"
	"testing"
)

// solid returns a w x h image of one colour.
func solid(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func TestEncodeGIF(t *testing.T) {
	// three rendered frames of a cloth falling, plus flat colours
	s := &Scene{Cloth: drapedCloth(21), Ground: true}
	cam := sceneCamera(s, 64, 48)
	var frames []*image.RGBA
	for i := 0; i < 3; i++ {
		f := image.NewRGBA(image.Rect(0, 0, 64, 48))
		Render(f, cam, s, Options{})
		frames = append(frames, f)
		for k := range s.Cloth.Positions {
			s.Cloth.Positions[k].Y -= 0.2
		}
	}
	frames = append(frames, solid(64, 48, color.RGBA{255, 0, 0, 255}), solid(64, 48, color.RGBA{0, 0, 255, 255}))
	for _, tc := range []struct {
		fps       float64
		wantDelay int
	}{
		{25, 4}, {24, 4}, {10, 10}, {30, 3}, {60, 2}, {1000, 2}, {0.5, 200},
	} {
		var buf bytes.Buffer
		if err := EncodeGIF(&buf, frames, tc.fps); err != nil {
			t.Fatalf("EncodeGIF(%d frames, %v fps): %v", len(frames), tc.fps, err)
		}
		g, err := gif.DecodeAll(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("gif.DecodeAll(EncodeGIF(%v fps)): %v", tc.fps, err)
		}
		if len(g.Image) != len(frames) {
			t.Errorf("EncodeGIF(%v fps) frames = %d, want %d", tc.fps, len(g.Image), len(frames))
		}
		for i, d := range g.Delay {
			if d != tc.wantDelay {
				t.Errorf("EncodeGIF(%v fps) frame %d delay = %d cs, want %d", tc.fps, i, d, tc.wantDelay)
			}
		}
		if g.LoopCount != 0 {
			t.Errorf("EncodeGIF loop count = %d, want 0 (forever)", g.LoopCount)
		}
		if g.Config.Width != 64 || g.Config.Height != 48 {
			t.Errorf("EncodeGIF size = %dx%d, want 64x48", g.Config.Width, g.Config.Height)
		}
		// colours survive quantisation: flat frames exactly (up to the
		// one-bin dither), rendered frames on average within a few levels
		for i, pm := range g.Image {
			var diff float64
			for y := 0; y < 48; y++ {
				for x := 0; x < 64; x++ {
					r, gg, b, _ := pm.At(x, y).RGBA()
					want := frames[i].RGBAAt(x, y)
					diff += math.Abs(float64(r>>8)-float64(want.R)) + math.Abs(float64(gg>>8)-float64(want.G)) + math.Abs(float64(b>>8)-float64(want.B))
				}
			}
			if mean := diff / (3 * 64 * 48); mean > 4 {
				t.Errorf("EncodeGIF frame %d mean colour error = %.2f levels, want <= 4", i, mean)
			}
		}
		var again bytes.Buffer
		if err := EncodeGIF(&again, frames, tc.fps); err != nil || !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Errorf("EncodeGIF(%v fps) is not deterministic (err %v)", tc.fps, err)
		}
	}
}

func TestEncodeGIFErrors(t *testing.T) {
	a, b := solid(8, 8, color.RGBA{1, 2, 3, 255}), solid(9, 8, color.RGBA{1, 2, 3, 255})
	for _, tc := range []struct {
		name   string
		frames []*image.RGBA
		fps    float64
		want   string
	}{
		{"no frames", nil, 24, "no frames"},
		{"zero fps", []*image.RGBA{a}, 0, "fps = 0"},
		{"negative fps", []*image.RGBA{a}, -3, "fps = -3"},
		{"NaN fps", []*image.RGBA{a}, math.NaN(), "fps = NaN"},
		{"Inf fps", []*image.RGBA{a}, math.Inf(1), "fps = +Inf"},
		{"nil frame", []*image.RGBA{a, nil}, 24, "frame 1 is nil"},
		{"size mismatch", []*image.RGBA{a, b}, 24, "frame 1 is 9x8, want 8x8"},
		{"empty frame", []*image.RGBA{image.NewRGBA(image.Rect(0, 0, 0, 5))}, 24, "frame 0 is 0x5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := EncodeGIF(&bytes.Buffer{}, tc.frames, tc.fps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("EncodeGIF(%s) error = %v, want one containing %q", tc.name, err, tc.want)
			}
		})
	}
}

func TestContactSheet(t *testing.T) {
	frames := make([]*image.RGBA, 5)
	for i := range frames {
		frames[i] = solid(64, 48, color.RGBA{uint8(40 * i), 100, 60, 255})
	}
	labels := []string{"frame 0", "", "frame 80", "frame 119"}
	for _, tc := range []struct {
		cols, wantW, wantH int
	}{
		{3, 192, 96}, {2, 128, 144}, {5, 320, 48}, {9, 320, 48}, {1, 64, 240}, {0, 192, 96},
	} {
		sheet := ContactSheet(frames, labels, tc.cols)
		if sheet.Rect.Dx() != tc.wantW || sheet.Rect.Dy() != tc.wantH {
			t.Errorf("ContactSheet(5 frames of 64x48, cols %d) = %dx%d, want %dx%d",
				tc.cols, sheet.Rect.Dx(), sheet.Rect.Dy(), tc.wantW, tc.wantH)
			continue
		}
		cols := tc.wantW / 64
		for i, f := range frames {
			ox, oy := i%cols*64, i/cols*48
			// away from the label and the separators, the tile is the frame
			if got, want := sheet.RGBAAt(ox+40, oy+30), f.RGBAAt(40, 30); got != want {
				t.Errorf("ContactSheet(cols %d) tile %d pixel = %v, want %v", tc.cols, i, got, want)
			}
			// the label is drawn as light text in the top-left corner
			light := 0
			for y := oy; y < oy+20; y++ {
				for x := ox; x < ox+63; x++ {
					if sheet.RGBAAt(x, y).R == 240 {
						light++
					}
				}
			}
			hasLabel := i < len(labels) && labels[i] != ""
			if (light > 0) != hasLabel {
				t.Errorf("ContactSheet(cols %d) tile %d has %d label pixels, want label = %v", tc.cols, i, light, hasLabel)
			}
		}
	}
	if s := ContactSheet(nil, nil, 3); s.Rect.Dx() != 0 || s.Rect.Dy() != 0 {
		t.Errorf("ContactSheet(no frames) = %v, want empty", s.Rect)
	}
	// mixed sizes and a nil frame: tiles are the largest size
	mixed := ContactSheet([]*image.RGBA{solid(10, 20, color.RGBA{A: 255}), nil, solid(30, 5, color.RGBA{A: 255})}, nil, 2)
	if mixed.Rect.Dx() != 60 || mixed.Rect.Dy() != 40 {
		t.Errorf("ContactSheet(10x20, nil, 30x5; cols 2) = %v, want 60x40", mixed.Rect.Size())
	}
}

// TestFont checks every glyph has rows of five cells and that lower case
// and unknown runes fall back as documented.
func TestFont(t *testing.T) {
	for _, g := range glyphArt {
		for y, row := range g.rows {
			if len(row) != glyphW || strings.Trim(row, ".#") != "" {
				t.Errorf("glyph %q row %d = %q, want %d cells of '.' or '#'", g.r, y, row, glyphW)
			}
		}
	}
	if glyphFor('a') != glyphFor('A') || glyphFor('é') != glyphFor('?') || glyphFor('~') != glyphFor('?') {
		t.Errorf("glyphFor: lower case must map to upper case and unknown runes to '?'")
	}
	if w, h := textSize("frame 40", 2); w != (8*6-1)*2 || h != 14 {
		t.Errorf("textSize(frame 40, 2) = %dx%d, want 94x14", w, h)
	}
}
