package render

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

var previewDir = flag.String("preview", "", "also write the preview pictures (preview.png, sheet.png, bake.gif) to this directory, to look at")

// keep writes data to name in the -preview directory, if one is given.
func keep(t *testing.T, name string, data []byte) {
	t.Helper()
	if *previewDir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(*previewDir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDrapedCloth renders a cloth draped over a ball, as seed 000 measures
// its preview: the cloth's pixel coverage must match a ray-cast oracle of
// the same camera, and the mean cloth colour must be the front colour seen
// from outside and the back colour with the winding flipped, within the
// bounds the lighting allows.
func TestDrapedCloth(t *testing.T) {
	const w, h = 320, 240
	cloth := drapedCloth(25) // seed 000's 25 x 25 grid
	for _, tc := range []struct {
		name     string
		cloth    Surface
		wantSide hit
		want     Color
	}{
		{"front", cloth, hitFront, testFront},
		{"flipped", flipped(cloth), hitBack, testBack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Scene{Cloth: tc.cloth}
			cam := sceneCamera(s, w, h)
			img := renderImage(t, cam, s, w, h, Options{})
			bg := background(cam, w, h, Options{})
			got := covered(img, bg)
			want := rayCast(cam, w, h, tc.cloth)

			// coverage: same pixels as the oracle, up to ties on edges
			nGot, nWant, mismatch, sideOK := 0, 0, 0, 0
			var sum [3]float64
			for i := range got {
				if got[i] {
					nGot++
					p := img.Pix[4*i : 4*i+3]
					sum[0], sum[1], sum[2] = sum[0]+float64(p[0]), sum[1]+float64(p[1]), sum[2]+float64(p[2])
				}
				if want[i] != hitNone {
					nWant++
				}
				if got[i] != (want[i] != hitNone) {
					mismatch++
				}
				if want[i] == tc.wantSide {
					sideOK++
				}
			}
			frac := float64(nGot) / float64(w*h)
			t.Logf("coverage %.1f%% (%d px, oracle %d, %d differ); %d px show the expected side",
				100*frac, nGot, nWant, mismatch, sideOK)
			if mismatch > nWant/200 {
				t.Errorf("Render(draped %s) coverage differs from the ray-cast oracle in %d px, want <= %d (0.5%% of %d)",
					tc.name, mismatch, nWant/200, nWant)
			}
			// AutoCamera frames the cloth: it must fill a good part of the image
			if frac < 0.1 || frac > 0.75 {
				t.Errorf("Render(draped %s) coverage = %.3f, want 0.1..0.75 for a framed cloth", tc.name, frac)
			}
			if sideOK < nWant*7/10 {
				t.Errorf("oracle sees the %v side in %d of %d px, want most: the test scene is wrong", tc.wantSide, sideOK, nWant)
			}

			// mean colour: dominated by the expected side's colour, and
			// inside the range Phong + ACES + sRGB can give it: between
			// ambient-only and fully lit with a full highlight
			mean := [3]float64{sum[0] / float64(nGot), sum[1] / float64(nGot), sum[2] / float64(nGot)}
			t.Logf("mean colour RGB(%.0f, %.0f, %.0f)", mean[0], mean[1], mean[2])
			c := [3]float64{tc.want.R, tc.want.G, tc.want.B}
			for k := 0; k < 3; k++ {
				lo := 255 * linearToSRGB(aces(c[k]*ambient))
				hi := 255 * linearToSRGB(aces(c[k]*(ambient+diffuse)+specular))
				if mean[k] < lo-1 || mean[k] > hi+1 {
					t.Errorf("Render(draped %s) mean channel %d = %.1f, want %.1f..%.1f", tc.name, k, mean[k], lo, hi)
				}
			}
			dominant, other := 0, 2 // red front, blue back
			if tc.wantSide == hitBack {
				dominant, other = 2, 0
			}
			if mean[dominant] < 1.5*mean[other] {
				t.Errorf("Render(draped %s) mean RGB(%.0f, %.0f, %.0f): channel %d should dominate channel %d by 1.5x",
					tc.name, mean[0], mean[1], mean[2], dominant, other)
			}
		})
	}
}

// TestPreviewPNG renders the draped cloth with the ball and the ground as
// the preview command will, writes it as a PNG and reads it back
// unchanged. With -preview=DIR it also writes the picture there.
func TestPreviewPNG(t *testing.T) {
	const w, h = 640, 480
	s := &Scene{
		Cloth:  drapedCloth(101),
		Extras: []Surface{sphereMesh(drapeCentre, drapeRadius, 24, 48)},
		Ground: true,
	}
	s.Cloth.Front, s.Cloth.Back = Color{}, Color{} // the defaults, as the CLI draws
	lo, hi, _ := SceneBounds(s)
	s.GroundY = lo.Y
	cam := AutoCamera(lo, hi, float64(w)/h)
	img := renderImage(t, cam, s, w, h, Options{Supersample: 2})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatalf("png.Encode: %v", err)
	}
	path := filepath.Join(t.TempDir(), "preview.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	keep(t, "preview.png", buf.Bytes())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil {
		t.Fatalf("png.Decode(%s): %v", path, err)
	}
	if back.Bounds() != img.Rect {
		t.Fatalf("preview.png bounds = %v, want %v", back.Bounds(), img.Rect)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, a := back.At(x, y).RGBA()
			p := img.Pix[img.PixOffset(x, y):]
			if uint8(r>>8) != p[0] || uint8(g>>8) != p[1] || uint8(b>>8) != p[2] || uint8(a>>8) != 255 {
				t.Fatalf("preview.png pixel (%d, %d) = %v, want %v", x, y, back.At(x, y), img.At(x, y))
			}
		}
	}
	// the cloth is red: the red-dominant pixels must be a good share
	red := 0
	for i := 0; i < w*h; i++ {
		p := img.Pix[4*i:]
		if int(p[0]) > 2*int(p[1]) && int(p[0]) > 2*int(p[2]) {
			red++
		}
	}
	if frac := float64(red) / (w * h); frac < 0.1 {
		t.Errorf("preview: red cloth pixels = %.3f of the image, want >= 0.1", frac)
	}
}

// TestZBuffer draws a near green square and a far blue one overlapping
// it, in both orders: the near one must win where they overlap.
func TestZBuffer(t *testing.T) {
	const w, h = 64, 64
	green, blue := RGB8(30, 200, 40), RGB8(30, 40, 200)
	near := quad(vec.V(-1, -1, 0), vec.V(1, -1, 0), vec.V(1, 1, 0), vec.V(-1, 1, 0), green, green)
	far := quad(vec.V(-0.5, -0.5, -1), vec.V(2.5, -0.5, -1), vec.V(2.5, 2.5, -1), vec.V(-0.5, 2.5, -1), blue, blue)
	cam := Camera{Eye: vec.V(0, 0, 5), Target: vec.V(0, 0, 0), FovY: 60}
	for _, tc := range []struct {
		name  string
		first Surface
		rest  Surface
	}{
		{"near first", near, far},
		{"far first", far, near},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := renderImage(t, cam, &Scene{Cloth: tc.first, Extras: []Surface{tc.rest}}, w, h, Options{})
			for _, p := range []struct {
				x, y  float64
				green bool
			}{
				{0.25, 0.25, true}, // overlap: near wins
				{0, 0, true},       // near only
				{1.7, 1.7, false},  // far only (projected at depth 6)
			} {
				px, py, _, _ := cam.Project(vec.V(p.x, p.y, 0), w, h)
				if !p.green {
					px, py, _, _ = cam.Project(vec.V(p.x, p.y, -1), w, h)
				}
				c := img.RGBAAt(int(px), int(py))
				if isGreen := c.G > c.B; isGreen != p.green {
					t.Errorf("Render(%s) pixel at (%.2f, %.2f) = %v, want green = %v", tc.name, p.x, p.y, c, p.green)
				}
			}
		})
	}
}

// TestTwoSided looks at one square head on, lit from the camera: its front
// shows the front colour and its back the back colour, both fully lit
// (the back's normal is flipped), with exactly the Phong, ACES and sRGB
// value at the centre.
func TestTwoSided(t *testing.T) {
	const w, h = 33, 33
	cam := Camera{Eye: vec.V(0, 0, 4), Target: vec.Vec3{}, FovY: 40}
	opt := Options{Light: vec.V(0, 0, 1)}
	sq := quad(vec.V(-1, -1, 0), vec.V(1, -1, 0), vec.V(1, 1, 0), vec.V(-1, 1, 0), testFront, testBack)
	for _, tc := range []struct {
		name string
		s    Surface
		want Color
	}{
		{"front", sq, testFront},
		{"back", flipped(sq), testBack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := renderImage(t, cam, &Scene{Cloth: tc.s}, w, h, opt)
			got := img.RGBAAt(w/2, h/2)
			// N = L = V at the centre: lit = ambient + diffuse, R.V = 1
			want := [3]float64{tc.want.R, tc.want.G, tc.want.B}
			for k, g := range []uint8{got.R, got.G, got.B} {
				e := 255 * linearToSRGB(aces(want[k]*(ambient+diffuse)+specular))
				if math.Abs(float64(g)-e) > 1.5 {
					t.Errorf("Render(%s) centre channel %d = %d, want %.1f", tc.name, k, g, e)
				}
			}
		})
	}
}

// TestNearClip draws a floor that runs from far ahead to behind the
// camera: clipped at the near plane, it must cover exactly the pixels the
// ray-cast oracle says (the lower part of the image), never the sky.
func TestNearClip(t *testing.T) {
	const w, h = 80, 60
	grey := RGB8(200, 200, 200)
	floor := quad(vec.V(-10, -1, 10), vec.V(10, -1, 10), vec.V(10, -1, -50), vec.V(-10, -1, -50), grey, grey)
	cam := Camera{Eye: vec.Vec3{}, Target: vec.V(0, 0, -1), FovY: 60, Near: 0.05}
	img := renderImage(t, cam, &Scene{Cloth: floor}, w, h, Options{})
	got := covered(img, background(cam, w, h, Options{}))
	want := rayCast(cam, w, h, floor)
	bad := 0
	for i := range got {
		if got[i] != (want[i] != hitNone) {
			bad++
		}
	}
	if bad > w/4 {
		t.Errorf("Render(floor through the camera) differs from the oracle in %d px, want <= %d", bad, w/4)
	}
	if got[0] || !got[(h-1)*w+w/2] {
		t.Errorf("Render(floor through the camera): top-left covered = %v, bottom-centre covered = %v, want false, true",
			got[0], got[(h-1)*w+w/2])
	}
}

// TestGround checks that the ground shows under the cloth, lighter than
// the background, and never covers the nearer cloth.
func TestGround(t *testing.T) {
	const w, h = 160, 120
	s := &Scene{Cloth: drapedCloth(31)}
	cam := sceneCamera(s, w, h)
	plain := renderImage(t, cam, s, w, h, Options{})
	bg := background(cam, w, h, Options{})
	s.Ground, s.GroundY = true, 0
	withGround := renderImage(t, cam, s, w, h, Options{})
	cloth := covered(plain, bg)
	changed := 0
	for i := range cloth {
		a, b := plain.Pix[4*i:4*i+3], withGround.Pix[4*i:4*i+3]
		same := a[0] == b[0] && a[1] == b[1] && a[2] == b[2]
		if cloth[i] && !same {
			t.Fatalf("Render(ground) changed cloth pixel %d from %v to %v", i, a, b)
		}
		if !same {
			changed++
		}
	}
	if changed < w*h/10 {
		t.Errorf("Render(ground) changed %d px, want >= %d (a visible ground)", changed, w*h/10)
	}
	// under the cloth, at the bottom centre, the ground is lighter than
	// the background there
	i := (h - 3) * w
	for x := 0; x < w; x++ {
		if !cloth[i+x] {
			a, b := bg.Pix[4*(i+x)], withGround.Pix[4*(i+x)]
			if b <= a {
				t.Errorf("Render(ground) bottom pixel %d = %d, want lighter than the background %d", x, b, a)
			}
			break
		}
	}
}

// TestDeterministic renders the same scene with fresh and reused
// renderers (the reused one after a different scene and size): the PNG
// bytes must be identical.
func TestDeterministic(t *testing.T) {
	s := &Scene{Cloth: drapedCloth(41), Extras: []Surface{sphereMesh(drapeCentre, drapeRadius, 12, 24)}, Ground: true}
	cam := sceneCamera(s, 200, 150)
	for _, ss := range []int{1, 2} {
		opt := Options{Supersample: ss}
		encode := func(r *Renderer) []byte {
			img := image.NewRGBA(image.Rect(0, 0, 200, 150))
			r.Render(img, cam, s, opt)
			var buf bytes.Buffer
			if err := png.Encode(&buf, img); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
		a := encode(NewRenderer())
		r := NewRenderer()
		other := image.NewRGBA(image.Rect(0, 0, 320, 100))
		r.Render(other, AutoCamera(vec.V(-3, -3, -3), vec.V(3, 3, 3), 3.2), &Scene{Cloth: flipped(drapedCloth(11))}, Options{Supersample: 3})
		b := encode(r)
		c := encode(r)
		if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
			t.Errorf("Render(supersample %d) PNG differs between runs (%d, %d, %d bytes)", ss, len(a), len(b), len(c))
		}
	}
}

// TestRenderAllocs checks that a reused Renderer draws a frame without
// allocating.
func TestRenderAllocs(t *testing.T) {
	s := &Scene{Cloth: drapedCloth(41), Extras: []Surface{sphereMesh(drapeCentre, drapeRadius, 12, 24)}, Ground: true}
	img := image.NewRGBA(image.Rect(0, 0, 160, 120))
	cam := sceneCamera(s, 160, 120)
	r := NewRenderer()
	r.Render(img, cam, s, Options{Supersample: 2})
	if n := testing.AllocsPerRun(3, func() { r.Render(img, cam, s, Options{Supersample: 2}) }); n != 0 {
		t.Errorf("Renderer.Render (reused) allocates %.0f times per frame, want 0", n)
	}
}

// TestRobust feeds bad geometry and cameras: Render must neither panic nor
// hang, and must still fill the image.
func TestRobust(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tri := func(a, b, c vec.Vec3) Surface {
		return Surface{Positions: []vec.Vec3{a, b, c}, Triangles: [][3]int32{{0, 1, 2}}}
	}
	good := Camera{Eye: vec.V(0, 0, 5), Target: vec.Vec3{}}
	for _, tc := range []struct {
		name string
		cam  Camera
		s    *Scene
	}{
		{"nil scene", good, nil},
		{"empty surface", good, &Scene{Cloth: Surface{}}},
		{"NaN corner", good, &Scene{Cloth: tri(vec.V(nan, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0))}},
		{"Inf corner", good, &Scene{Cloth: tri(vec.V(inf, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0))}},
		{"huge 1e300", good, &Scene{Cloth: tri(vec.V(-1e300, -1e300, 0), vec.V(1e300, -1e300, 0), vec.V(0, 1e300, 0))}},
		{"huge 1e30", good, &Scene{Cloth: tri(vec.V(-1e30, -1e30, 0), vec.V(1e30, -1e30, 0), vec.V(0, 1e30, 0))}},
		{"huge depth spread", good, &Scene{Cloth: tri(vec.V(0, 0, -1e200), vec.V(1, 0, 4.9999), vec.V(0, 1, 4.99999))}},
		{"index out of range", good, &Scene{Cloth: Surface{Positions: []vec.Vec3{{}, {X: 1}}, Triangles: [][3]int32{{0, 1, 7}, {-1, 0, 1}}}}},
		{"degenerate", good, &Scene{Cloth: tri(vec.V(0, 0, 0), vec.V(1, 1, 1), vec.V(2, 2, 2))}},
		{"behind camera", good, &Scene{Cloth: tri(vec.V(-1, -1, 9), vec.V(1, -1, 9), vec.V(0, 1, 9))}},
		{"through the eye", good, &Scene{Cloth: tri(vec.V(-1, -1, 9), vec.V(1, -1, -9), vec.V(0, 1, 5))}},
		{"eye on target", Camera{Eye: vec.V(1, 1, 1), Target: vec.V(1, 1, 1)}, &Scene{Cloth: drapedCloth(5)}},
		{"looking straight down", Camera{Eye: vec.V(0, 9, 0), Target: vec.Vec3{}}, &Scene{Cloth: drapedCloth(5), Ground: true}},
		{"NaN camera", Camera{Eye: vec.V(nan, 0, 0), Target: vec.V(0, inf, 0), FovY: nan, Near: nan}, &Scene{Cloth: drapedCloth(5), Ground: true, GroundY: nan}},
		{"ground above eye", good, &Scene{Cloth: drapedCloth(5), Ground: true, GroundY: 10}},
		{"huge ground", good, &Scene{Ground: true, GroundY: -1e300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {Supersample: 3, Exposure: inf, Light: vec.V(nan, 0, 0)}} {
				img := renderImage(t, tc.cam, tc.s, 23, 17, opt)
				for i := 3; i < len(img.Pix); i += 4 {
					if img.Pix[i] != 255 {
						t.Fatalf("Render(%s) left pixel %d transparent", tc.name, i/4)
					}
				}
			}
		})
	}
	// empty and nil images are ignored
	Render(nil, good, nil, Options{})
	Render(image.NewRGBA(image.Rect(3, 3, 3, 9)), good, nil, Options{})
}

// TestRenderSubImage draws into a sub-image: only its pixels change, and
// they match a standalone image of the same size.
func TestRenderSubImage(t *testing.T) {
	s := &Scene{Cloth: drapedCloth(11)}
	cam := sceneCamera(s, 40, 30)
	big := image.NewRGBA(image.Rect(0, 0, 100, 80))
	sub := big.SubImage(image.Rect(30, 20, 70, 50)).(*image.RGBA)
	Render(sub, cam, s, Options{})
	alone := renderImage(t, cam, s, 40, 30, Options{})
	for y := 0; y < 80; y++ {
		for x := 0; x < 100; x++ {
			got := big.RGBAAt(x, y)
			if (image.Point{x, y}).In(sub.Rect) {
				if want := alone.RGBAAt(x-30, y-20); got != want {
					t.Fatalf("sub-image pixel (%d, %d) = %v, want %v", x, y, got, want)
				}
			} else if got.A != 0 {
				t.Fatalf("pixel (%d, %d) outside the sub-image was drawn: %v", x, y, got)
			}
		}
	}
}

// TestSupersample checks that 2x2 supersampling keeps the cloth's
// coverage (only edges change) and softens its silhouette.
func TestSupersample(t *testing.T) {
	const w, h = 160, 120
	s := &Scene{Cloth: drapedCloth(31)}
	cam := sceneCamera(s, w, h)
	bg := background(cam, w, h, Options{})
	one := covered(renderImage(t, cam, s, w, h, Options{}), bg)
	two := covered(renderImage(t, cam, s, w, h, Options{Supersample: 2}), bg)
	n1, n2 := 0, 0
	for i := range one {
		if one[i] {
			n1++
		}
		if two[i] {
			n2++
		}
	}
	// supersampled edges are partly covered, so a few more pixels differ
	// from the background, never fewer, and not many more
	if n2 < n1 || float64(n2) > 1.15*float64(n1) {
		t.Errorf("covered pixels: supersample 2 = %d, 1 = %d, want within +15%%", n2, n1)
	}
}

func TestACES(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{0, 0}, {-1, 0}, {math.NaN(), 0},
		{1, 2.54 / 3.16}, // Narkowicz's fit at 1
		{1e6, 1}, {math.Inf(1), 1},
	} {
		if got := aces(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("aces(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	prev := 0.0
	for i := 1; i <= 20000; i++ {
		x := float64(i) * 1e-3
		y := aces(x)
		if y < prev || (x < 7 && y <= prev) {
			t.Fatalf("aces not increasing at %v: %v after %v", x, y, prev)
		}
		prev = y
	}
	if aces(20) < 0.999 {
		t.Errorf("aces(20) = %v, want ~1", aces(20))
	}
}

func TestSRGB(t *testing.T) {
	for _, v := range []uint8{0, 1, 10, 50, 128, 200, 254, 255} {
		c := RGB8(v, v, v)
		if got := encode(c.R); got != v {
			t.Errorf("encode(RGB8(%d).R = %v) = %d, want %d", v, c.R, got, v)
		}
	}
}

// TestShadow floats a square above the ground, lit from the upper right:
// its shadow darkens the ground to its left, the ground to its right is
// untouched, and the lit square itself shows no self-shadowing (acne).
func TestShadow(t *testing.T) {
	const w, h = 160, 120
	grey := RGB8(180, 180, 180)
	sq := quad(vec.V(-0.5, 1, 0.5), vec.V(0.5, 1, 0.5), vec.V(0.5, 1, -0.5), vec.V(-0.5, 1, -0.5), grey, grey)
	s := &Scene{Cloth: sq, Ground: true, GroundY: 0}
	cam := Camera{Eye: vec.V(0, 4, 6), Target: vec.Vec3{}, FovY: 40}
	light := vec.V(1, 1, 0) // shadow falls 1 m to the left: x in [-1.5, -0.5]
	on := renderImage(t, cam, s, w, h, Options{Light: light})
	off := renderImage(t, cam, s, w, h, Options{Light: light, NoShadows: true})
	at := func(img *image.RGBA, p vec.Vec3) float64 {
		x, y, _, ok := cam.Project(p, w, h)
		if !ok {
			t.Fatalf("Project(%v) not in view", p)
		}
		return float64(img.RGBAAt(int(x), int(y)).G)
	}
	// same checker parity and distance from the ground's centre
	shadowed, lit := vec.V(-1.1, 0, 0.1), vec.V(1.9, 0, 0.1)
	if a, b := at(on, shadowed), at(off, shadowed); a > 0.6*b {
		t.Errorf("ground in the square's shadow = %v, want < 0.6 x its unshadowed %v", a, b)
	}
	if a, b := at(on, lit), at(off, lit); a != b {
		t.Errorf("ground outside the shadow = %v with shadows, %v without, want equal", a, b)
	}
	if a, b := at(on, vec.V(0.1, 1, 0.1)), at(off, vec.V(0.1, 1, 0.1)); a != b {
		t.Errorf("lit square = %v with shadows, %v without, want equal (no acne)", a, b)
	}
}

// TestBakeSheet renders four frames of a cloth falling from flat onto the
// ball with one camera framing all of them, as the preview command does,
// and packs them into a labelled contact sheet and a GIF: the cloth must
// be in view in every frame and move between them.
func TestBakeSheet(t *testing.T) {
	const w, h, n = 320, 240, 4
	draped := drapedCloth(41)
	flat := draped
	flat.Positions = make([]vec.Vec3, len(draped.Positions))
	for j := 0; j < 41; j++ {
		for i := 0; i < 41; i++ {
			flat.Positions[j*41+i] = vec.V((float64(i)/40-0.5)*2.4, 2, (float64(j)/40-0.5)*2.4)
		}
	}
	ball := sphereMesh(drapeCentre, drapeRadius, 16, 32)
	scenes := make([]*Scene, n)
	var lo, hi vec.Vec3
	for f := range scenes {
		s := &Scene{Cloth: flat, Extras: []Surface{ball}, Ground: true}
		s.Cloth.Positions = make([]vec.Vec3, len(flat.Positions))
		for k := range s.Cloth.Positions {
			s.Cloth.Positions[k] = flat.Positions[k].Lerp(draped.Positions[k], float64(f)/(n-1))
		}
		scenes[f] = s
		a, b, _ := SceneBounds(s)
		if f == 0 {
			lo, hi = a, b
		}
		lo, hi = lo.Min(a), hi.Max(b)
	}
	cam := AutoCamera(lo, hi, float64(w)/h)
	r := NewRenderer()
	frames := make([]*image.RGBA, n)
	labels := make([]string, n)
	var prev []bool
	for f, s := range scenes {
		s.GroundY = lo.Y
		frames[f] = image.NewRGBA(image.Rect(0, 0, w, h))
		r.Render(frames[f], cam, s, Options{})
		labels[f] = "frame " + string(rune('0'+f*3)) + "0"
		// the cloth stays inside the frame: no cloth-coloured pixel on
		// the border, and it moves between frames
		red := make([]bool, w*h)
		for i := range red {
			p := frames[f].Pix[4*i:]
			red[i] = int(p[0]) > 2*int(p[1])+10 && int(p[0]) > 2*int(p[2])+10
		}
		for x := 0; x < w; x++ {
			if red[x] || red[(h-1)*w+x] {
				t.Errorf("frame %d: cloth touches the top or bottom edge at x = %d", f, x)
				break
			}
		}
		if prev != nil {
			moved := 0
			for i := range red {
				if red[i] != prev[i] {
					moved++
				}
			}
			if moved < w*h/100 {
				t.Errorf("frame %d: only %d px changed from frame %d, want the motion visible", f, moved, f-1)
			}
		}
		prev = red
	}
	sheet := ContactSheet(frames, labels, 2)
	if sheet.Rect.Dx() != 2*w || sheet.Rect.Dy() != 2*h {
		t.Errorf("ContactSheet(4 frames, 2 cols) = %v, want %dx%d", sheet.Rect.Size(), 2*w, 2*h)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, sheet); err != nil {
		t.Fatal(err)
	}
	keep(t, "sheet.png", buf.Bytes())
	buf.Reset()
	if err := EncodeGIF(&buf, frames, 2); err != nil {
		t.Fatalf("EncodeGIF: %v", err)
	}
	keep(t, "bake.gif", buf.Bytes())
}
