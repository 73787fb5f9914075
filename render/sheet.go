package render

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// sheetBackground fills tiles that have no frame (the end of the last row,
// or the margin around a frame smaller than the largest).
var sheetBackground = color.RGBA{20, 22, 26, 255}

// ContactSheet lays frames out in a grid of cols columns, left to right and
// top to bottom, each tile the size of the largest frame, with labels[i]
// (such as "frame 40") drawn in the tile's top-left corner over a dark box.
// The sheet is exactly cols x rows tiles, rows = ceil(len(frames)/cols);
// tiles after the first row and column get a one-pixel dark separator on
// their top and left edges. cols <= 0 picks a near-square grid; cols is at
// most len(frames). Missing or empty labels and nil frames draw nothing.
// No frames gives an empty image.
func ContactSheet(frames []*image.RGBA, labels []string, cols int) *image.RGBA {
	n := len(frames)
	tw, th := 0, 0
	for _, f := range frames {
		if f != nil {
			tw, th = max(tw, f.Rect.Dx()), max(th, f.Rect.Dy())
		}
	}
	if n == 0 || tw == 0 || th == 0 {
		return image.NewRGBA(image.Rect(0, 0, 0, 0))
	}
	if cols <= 0 {
		cols = int(math.Ceil(math.Sqrt(float64(n))))
	}
	cols = min(cols, n)
	rows := (n + cols - 1) / cols
	sheet := image.NewRGBA(image.Rect(0, 0, cols*tw, rows*th))
	draw.Draw(sheet, sheet.Rect, image.NewUniform(sheetBackground), image.Point{}, draw.Src)
	scale := max(1, (th+80)/160)
	for i, f := range frames {
		tile := image.Rect(0, 0, tw, th).Add(image.Pt(i%cols*tw, i/cols*th))
		if f != nil {
			draw.Draw(sheet, tile, f, f.Rect.Min, draw.Src)
		}
		if i%cols > 0 {
			fill(sheet, image.Rect(tile.Min.X, tile.Min.Y, tile.Min.X+1, tile.Max.Y), sheetBackground)
		}
		if i >= cols {
			fill(sheet, image.Rect(tile.Min.X, tile.Min.Y, tile.Max.X, tile.Min.Y+1), sheetBackground)
		}
		if i >= len(labels) || labels[i] == "" {
			continue
		}
		w, h := textSize(labels[i], scale)
		pad := 2 * scale
		box := image.Rect(0, 0, w+2*pad, h+2*pad).Add(tile.Min.Add(image.Pt(pad, pad))).Intersect(tile)
		darken(sheet, box)
		drawText(sheet.SubImage(tile).(*image.RGBA), box.Min.X+pad, box.Min.Y+pad, labels[i], scale, [3]uint8{240, 240, 240})
	}
	return sheet
}

func fill(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// darken scales the colour of every pixel of dst in r to 30 %, so white
// label text reads on any frame.
func darken(dst *image.RGBA, r image.Rectangle) {
	r = r.Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			o := dst.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				dst.Pix[o+k] = uint8(uint16(dst.Pix[o+k]) * 3 / 10)
			}
		}
	}
}
