package render

import (
	"bytes"
	"image"
	"testing"
	"time"
)

// BenchmarkRender draws one 640x480 frame of a draped cloth with a reused
// Renderer. 20k is a 101x101 grid (20 000 triangles); the ground and
// supersampled variants add the collider ball and the checkered ground.
func BenchmarkRender(b *testing.B) {
	cloth := drapedCloth(101)
	ball := sphereMesh(drapeCentre, drapeRadius, 24, 48)
	for _, bc := range []struct {
		name string
		s    *Scene
		opt  Options
	}{
		{"20k", &Scene{Cloth: cloth}, Options{}},
		{"20k_ball_ground", &Scene{Cloth: cloth, Extras: []Surface{ball}, Ground: true}, Options{}},
		{"20k_ball_ground_ss2", &Scene{Cloth: cloth, Extras: []Surface{ball}, Ground: true}, Options{Supersample: 2}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			img := image.NewRGBA(image.Rect(0, 0, 640, 480))
			cam := sceneCamera(bc.s, 640, 480)
			r := NewRenderer()
			r.Render(img, cam, bc.s, bc.opt) // warm: buffers grow once
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				r.Render(img, cam, bc.s, bc.opt)
			}
			reportCPU(b, cpu0)
		})
	}
}

// reportCPU adds the process CPU time per op since cpu0 as "cpu-ms/op":
// on a loaded machine ns/op counts time spent waiting for a core, this
// does not (it does count the garbage collector's threads).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if d := cpuTime() - cpu0; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkEncodeGIF encodes 8 frames of 320x240.
func BenchmarkEncodeGIF(b *testing.B) {
	s := &Scene{Cloth: drapedCloth(41), Ground: true}
	cam := sceneCamera(s, 320, 240)
	frames := make([]*image.RGBA, 8)
	for i := range frames {
		frames[i] = image.NewRGBA(image.Rect(0, 0, 320, 240))
		s.Cloth.Positions[i].Y += 0.1
		Render(frames[i], cam, s, Options{})
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		buf.Reset()
		if err := EncodeGIF(&buf, frames, 24); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}
