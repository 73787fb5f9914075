package render

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"math"
	"sort"
)

// EncodeGIF writes frames as an animated GIF that loops forever, at fps
// frames per second. GIF delays are whole centiseconds, so each frame shows
// for round(100/fps) cs, at least 2 (most viewers slow shorter delays
// down to 10 cs): 24 fps is written as 4 cs, 25 fps.
//
// All frames share one 256-colour palette chosen by median cut
// (Heckbert 1982) over a 15-bit histogram of every frame, and are mapped to
// it with 4x4 ordered (Bayer) dithering, so the output is deterministic.
// Frames must be non-nil and of one size.
func EncodeGIF(w io.Writer, frames []*image.RGBA, fps float64) error {
	if len(frames) == 0 {
		return errors.New("render: encode gif: no frames")
	}
	if !(fps > 0) || math.IsInf(fps, 0) {
		return fmt.Errorf("render: encode gif: fps = %v: must be a positive number", fps)
	}
	var size image.Point
	for i, f := range frames {
		if f == nil {
			return fmt.Errorf("render: encode gif: frame %d is nil", i)
		}
		if i == 0 {
			size = f.Rect.Size()
			if size.X <= 0 || size.Y <= 0 || size.X > 65535 || size.Y > 65535 {
				return fmt.Errorf("render: encode gif: frame 0 is %dx%d: must be 1..65535 pixels each way", size.X, size.Y)
			}
		} else if f.Rect.Size() != size {
			return fmt.Errorf("render: encode gif: frame %d is %dx%d, want %dx%d like frame 0",
				i, f.Rect.Dx(), f.Rect.Dy(), size.X, size.Y)
		}
	}
	delay := int(math.Round(100 / fps))
	delay = max(2, min(delay, 65535))

	q := newQuantizer(frames)
	g := &gif.GIF{
		Image:  make([]*image.Paletted, len(frames)),
		Delay:  make([]int, len(frames)),
		Config: image.Config{ColorModel: q.palette, Width: size.X, Height: size.Y},
	}
	for i, f := range frames {
		g.Image[i] = q.paletted(f)
		g.Delay[i] = delay
	}
	if err := gif.EncodeAll(w, g); err != nil {
		return fmt.Errorf("render: encode gif: %w", err)
	}
	return nil
}

// bin returns the 15-bit histogram bin of an 8-bit colour (5 bits each).
func bin(r, g, b uint8) int { return int(r>>3)<<10 | int(g>>3)<<5 | int(b>>3) }

// quantizer holds the shared palette and a lazily filled map from
// histogram bin to nearest palette index.
type quantizer struct {
	palette color.Palette
	rgb     [][3]int32
	nearest [1 << 15]uint16 // palette index + 1; 0 = not yet computed
}

// newQuantizer builds the median-cut palette of frames.
func newQuantizer(frames []*image.RGBA) *quantizer {
	var count [1 << 15]uint64
	var sum [1 << 15][3]uint64
	for _, f := range frames {
		for y := f.Rect.Min.Y; y < f.Rect.Max.Y; y++ {
			row := f.Pix[f.PixOffset(f.Rect.Min.X, y):]
			for x := 0; x < f.Rect.Dx(); x++ {
				p := row[4*x : 4*x+3 : 4*x+3]
				k := bin(p[0], p[1], p[2])
				count[k]++
				sum[k][0] += uint64(p[0])
				sum[k][1] += uint64(p[1])
				sum[k][2] += uint64(p[2])
			}
		}
	}
	var bins []int32
	for k := range count {
		if count[k] > 0 {
			bins = append(bins, int32(k))
		}
	}
	// median cut: a box is a range of bins; split the box with the largest
	// population times extent along its widest channel at the weighted
	// median, until there are 256 boxes or none can be split
	type box struct{ lo, hi int }
	boxes := []box{{0, len(bins)}}
	channel := func(k int32, c int) int32 { return k >> (10 - 5*c) & 31 }
	widest := func(b box) (c int, extent int32) {
		for ch := 0; ch < 3; ch++ {
			lo, hi := int32(31), int32(0)
			for _, k := range bins[b.lo:b.hi] {
				v := channel(k, ch)
				lo, hi = min(lo, v), max(hi, v)
			}
			if hi-lo > extent {
				c, extent = ch, hi-lo
			}
		}
		return c, extent
	}
	for len(boxes) < 256 {
		best, bestScore := -1, 0.0
		for i, b := range boxes {
			if b.hi-b.lo < 2 {
				continue
			}
			_, ext := widest(b)
			var pop uint64
			for _, k := range bins[b.lo:b.hi] {
				pop += count[k]
			}
			if s := float64(pop) * float64(ext); s > bestScore {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			break
		}
		b := boxes[best]
		c, _ := widest(b)
		part := bins[b.lo:b.hi]
		// the key (channel value, bin) is unique, so the order is total
		sort.Slice(part, func(i, j int) bool {
			vi, vj := channel(part[i], c), channel(part[j], c)
			return vi < vj || vi == vj && part[i] < part[j]
		})
		var total, acc uint64
		for _, k := range part {
			total += count[k]
		}
		split := 1
		for i, k := range part[:len(part)-1] {
			acc += count[k]
			split = i + 1
			if 2*acc >= total {
				break
			}
		}
		boxes[best] = box{b.lo, b.lo + split}
		boxes = append(boxes, box{b.lo + split, b.hi})
	}
	q := &quantizer{}
	for _, b := range boxes {
		var n uint64
		var s [3]uint64
		for _, k := range bins[b.lo:b.hi] {
			n += count[k]
			s[0], s[1], s[2] = s[0]+sum[k][0], s[1]+sum[k][1], s[2]+sum[k][2]
		}
		if n == 0 {
			continue
		}
		c := [3]int32{int32((s[0] + n/2) / n), int32((s[1] + n/2) / n), int32((s[2] + n/2) / n)}
		q.rgb = append(q.rgb, c)
		q.palette = append(q.palette, color.RGBA{uint8(c[0]), uint8(c[1]), uint8(c[2]), 255})
	}
	if len(q.palette) == 0 {
		q.rgb = append(q.rgb, [3]int32{})
		q.palette = append(q.palette, color.RGBA{0, 0, 0, 255})
	}
	return q
}

// index returns the palette entry nearest the centre of bin k.
func (q *quantizer) index(k int) uint8 {
	if v := q.nearest[k]; v != 0 {
		return uint8(v - 1)
	}
	r, g, b := int32(k>>10&31)<<3|4, int32(k>>5&31)<<3|4, int32(k&31)<<3|4
	best, bestD := 0, int32(math.MaxInt32)
	for i, c := range q.rgb {
		dr, dg, db := c[0]-r, c[1]-g, c[2]-b
		if d := dr*dr + dg*dg + db*db; d < bestD {
			best, bestD = i, d
		}
	}
	q.nearest[k] = uint16(best + 1)
	return uint8(best)
}

// bayer4 is the 4x4 ordered-dither threshold matrix.
var bayer4 = [4][4]int{{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}}

// paletted maps f onto the palette with ordered dithering of one histogram
// bin (8 levels) in amplitude.
func (q *quantizer) paletted(f *image.RGBA) *image.Paletted {
	w, h := f.Rect.Dx(), f.Rect.Dy()
	pm := image.NewPaletted(image.Rect(0, 0, w, h), q.palette)
	for y := 0; y < h; y++ {
		row := f.Pix[f.PixOffset(f.Rect.Min.X, f.Rect.Min.Y+y):]
		out := pm.Pix[y*pm.Stride:]
		for x := 0; x < w; x++ {
			d := bayer4[y&3][x&3]/2 - 4 // -4..3
			p := row[4*x : 4*x+3 : 4*x+3]
			out[x] = q.index(bin(dither(p[0], d), dither(p[1], d), dither(p[2], d)))
		}
	}
	return pm
}

func dither(v uint8, d int) uint8 { return uint8(max(0, min(255, int(v)+d))) }
