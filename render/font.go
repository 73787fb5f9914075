package render

import "image"

// A tiny built-in 5x7 bitmap font for contact-sheet labels: digits,
// capital letters (lower case is drawn as upper case) and a little
// punctuation; anything else draws as '?'.

const glyphW, glyphH = 5, 7

// glyphArt lists each glyph as seven rows of five cells, '#' set.
var glyphArt = []struct {
	r    rune
	rows [glyphH]string
}{
	{' ', [glyphH]string{".....", ".....", ".....", ".....", ".....", ".....", "....."}},
	{'0', [glyphH]string{".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
	{'1', [glyphH]string{"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
	{'2', [glyphH]string{".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
	{'3', [glyphH]string{"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
	{'4', [glyphH]string{"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
	{'5', [glyphH]string{"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
	{'6', [glyphH]string{"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
	{'7', [glyphH]string{"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
	{'8', [glyphH]string{".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
	{'9', [glyphH]string{".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
	{'A', [glyphH]string{".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
	{'B', [glyphH]string{"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
	{'C', [glyphH]string{".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
	{'D', [glyphH]string{"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}},
	{'E', [glyphH]string{"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
	{'F', [glyphH]string{"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
	{'G', [glyphH]string{".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
	{'H', [glyphH]string{"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
	{'I', [glyphH]string{".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
	{'J', [glyphH]string{"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
	{'K', [glyphH]string{"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
	{'L', [glyphH]string{"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
	{'M', [glyphH]string{"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
	{'N', [glyphH]string{"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
	{'O', [glyphH]string{".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
	{'P', [glyphH]string{"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
	{'Q', [glyphH]string{".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
	{'R', [glyphH]string{"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
	{'S', [glyphH]string{".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
	{'T', [glyphH]string{"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
	{'U', [glyphH]string{"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
	{'V', [glyphH]string{"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
	{'W', [glyphH]string{"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
	{'X', [glyphH]string{"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
	{'Y', [glyphH]string{"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
	{'Z', [glyphH]string{"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
	{'.', [glyphH]string{".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
	{',', [glyphH]string{".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
	{':', [glyphH]string{".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
	{'-', [glyphH]string{".....", ".....", ".....", "#####", ".....", ".....", "....."}},
	{'_', [glyphH]string{".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
	{'/', [glyphH]string{"....#", "....#", "...#.", "..#..", ".#...", "#....", "#...."}},
	{'(', [glyphH]string{"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
	{')', [glyphH]string{".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
	{'=', [glyphH]string{".....", ".....", "#####", ".....", "#####", ".....", "....."}},
	{'+', [glyphH]string{".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
	{'%', [glyphH]string{"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
	{'#', [glyphH]string{".#.#.", ".#.#.", "#####", ".#.#.", "#####", ".#.#.", ".#.#."}},
	{'?', [glyphH]string{".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
}

// glyphs holds each ASCII glyph's rows as bit masks (bit 4 = leftmost).
var glyphs = func() (g [128][glyphH]uint8) {
	for _, a := range glyphArt {
		for y, row := range a.rows {
			for x := 0; x < glyphW; x++ {
				if row[x] == '#' {
					g[a.r][y] |= 1 << (glyphW - 1 - x)
				}
			}
		}
	}
	return g
}()

// glyphFor returns the glyph of r: lower case as upper case, unknown as '?'.
func glyphFor(r rune) *[glyphH]uint8 {
	if r >= 'a' && r <= 'z' {
		r -= 'a' - 'A'
	}
	if r == ' ' {
		return &glyphs[' ']
	}
	if r <= 0 || r >= 128 || glyphs[r] == ([glyphH]uint8{}) {
		r = '?'
	}
	return &glyphs[r]
}

// textSize returns the pixel size of s drawn at the given scale: glyphs
// are glyphW cells wide plus one cell of spacing.
func textSize(s string, scale int) (w, h int) {
	n := len([]rune(s))
	if n == 0 {
		return 0, 0
	}
	return (n*(glyphW+1) - 1) * scale, glyphH * scale
}

// drawText draws s with its top-left corner at (x, y) in colour c (R, G,
// B), clipped to dst's bounds.
func drawText(dst *image.RGBA, x, y int, s string, scale int, c [3]uint8) {
	b := dst.Rect
	for _, r := range s {
		g := glyphFor(r)
		for gy := 0; gy < glyphH; gy++ {
			for gx := 0; gx < glyphW; gx++ {
				if g[gy]&(1<<(glyphW-1-gx)) == 0 {
					continue
				}
				for py := y + gy*scale; py < y+(gy+1)*scale; py++ {
					for px := x + gx*scale; px < x+(gx+1)*scale; px++ {
						if !(image.Point{px, py}).In(b) {
							continue
						}
						o := dst.PixOffset(px, py)
						dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = c[0], c[1], c[2], 255
					}
				}
			}
		}
		x += (glyphW + 1) * scale
	}
}
