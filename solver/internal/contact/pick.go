package contact

import "github.com/drape-sim/drape/internal/vec"

// pick flags the pairs closer than h + margin at the current positions (or
// crossed), refreshing the side memories first if sides is set, and lists
// them in sc.all.near. Without sides it reads which vertices moved since
// the first pick in sc.moved (repick).
func (sc *Contact) pick(sides bool) {
	sc.sides = sides
	n := len(sc.vt) + len(sc.ee)
	if cap(sc.nearFlag) < n {
		sc.nearFlag = make([]bool, n, n+n/2)
		sc.crossFlag = make([]bool, n, n+n/2)
	}
	sc.nearFlag, sc.crossFlag = sc.nearFlag[:n], sc.crossFlag[:n]
	if cap(sc.keep) < n {
		sc.keep = make([]uint8, n, n+n/2)
		sc.keepSkip = false
	}
	sc.keep = sc.keep[:n]
	ph := phaseRefresh
	sc.comps.ok = false
	if sides && n <= splitMax {
		// the first pick of a substep splits the list into components
		// alongside (see split)
		ph = phaseRefreshSplit
	}
	sc.run(ph, n, n, refreshGrain)
	sc.all.pickTick = sc.all.tick
	sc.listNear()
	// (the classes are cut when a sweep first needs them: see sweep)
	sc.par.classed = len(sc.all.near) >= sc.par.min
	sc.par.cut = false
}

// refresh updates the side memories of pairs [lo, hi) from the
// substep's start positions and flags those near contact (refreshPair).
func (sc *Contact) refresh(lo, hi int) {
	pt, cross := sc.all.pickTick, sc.all.crossOnly
	for k := lo; k < hi; k++ {
		sc.refreshPair(k, pt, cross)
	}
}

// refreshPair updates pair k's side memory from the substep's start
// positions (see vertexTriangleSide and edgeEdgeDir) and flags it if it is
// closer than h + margin at the current positions, or crossed; pt is the
// tick of its group's last pick. The substep's first pick (sc.sides) also
// records how it may keep the pair at the next one (sc.keep). With
// crossOnly (failSafe's picks), and at a later pick for a pair already
// near, it only flags whether the pair is crossed.
func (sc *Contact) refreshPair(k int, pt int32, crossOnly bool) {
	pos, prev := sc.pos, sc.prev
	// after the substep's first pick, a pair neither near nor crossed then
	// stays so while none of its vertices has moved margin·h/2 since
	// (the distance of the pair changes by less than margin·h), and a
	// pair none of whose vertices moved since the last pick keeps its flags
	mv, st := sc.moved, sc.vStamp
	moved := func(vs [4]int32) bool {
		return mv[vs[0]] || mv[vs[1]] || mv[vs[2]] || mv[vs[3]]
	}
	still := func(vs [4]int32) bool {
		return st[vs[0]] <= pt && st[vs[1]] <= pt && st[vs[2]] <= pt && st[vs[3]] <= pt
	}
	// the first pick skips a pair it found surely far from contact, or
	// surely near it (sc.keep), while none of its vertices moved
	// keepDrift·h from where it was then (sc.reanch): it is then at
	// most 4·keepDrift·h closer or further
	re, mot := sc.reanch, sc.mot
	skip := func(vs [4]int32) bool {
		if !sc.keepSkip || sc.keep[k] == 0 || re[vs[0]] || re[vs[1]] || re[vs[2]] || re[vs[3]] {
			return false
		}
		near := sc.keep[k] == keepNear
		sc.nearFlag[k], sc.crossFlag[k] = near, false
		return true
	}
	drift := 4 * keepDrift * sc.h
	// keepOf returns how a pair at distance dist (squared: dsq), not
	// crossed, is kept. Far beyond r + drift + twice its vertices'
	// longest displacement in the substep, it is still beyond r, and so
	// are the substep's paths, which the crossing tests interpolate. Near
	// within r - drift it is still within r; at least 3·drift + twice
	// that displacement away, neither can it cross nor pass round an edge
	// end (which turns the side memory, kept with it) unseen.
	keepOf := func(vs [4]int32, dsq, r float64) uint8 {
		m := 2 * max(mot[vs[0]], mot[vs[1]], mot[vs[2]], mot[vs[3]])
		if f := (r + drift + m) * apartMargin; dsq >= f*f {
			return keepFar
		}
		if f, c := r-drift, 3*drift+m; f > 0 && dsq*apartMargin*apartMargin <= f*f && dsq >= c*c*apartMargin*apartMargin {
			return keepNear
		}
		return 0
	}
	nvt := len(sc.vt)
	vs := sc.pv[k]
	if k < nvt {
		p := &sc.vt[k]
		t := [3]int32{vs[1], vs[2], vs[3]}
		if !sc.sides && (still(vs) || !sc.nearFlag[k] && !moved(vs)) {
			return
		}
		if sc.sides {
			if skip(vs) {
				return
			}
			side := vertexTriangleSide([4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
			if side != p.side {
				p.side, sc.budget[k] = side, 0
			}
			sc.keep[k] = 0
		}
		r := p.h + margin*sc.h
		x, a, b, c := pos[p.v], pos[t[0]], pos[t[1]], pos[t[2]]
		if crossOnly || !sc.sides && sc.nearFlag[k] {
			// the crossed flag as below, the vertex on its side of the
			// plane first (then not crossed either way); a pair near
			// at an earlier pick of the substep stays near (a projection
			// of a pair out of contact changes nothing)
			cr := false
			if nt := b.Sub(a).Cross(c.Sub(a)); x.Sub(a).Dot(nt)*p.side < 0 {
				q4, p4 := [4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}
				if outsideBox(x, a, b, c, r) {
					cr = crossedTriangle(q4, p4, p.side)
				} else {
					u, v, ww := closestOnTriangle(x, a, b, c)
					cr = u > 0 && v > 0 && ww > 0 || crossedTriangle(q4, p4, p.side)
				}
			}
			sc.crossFlag[k] = cr
			sc.nearFlag[k] = sc.nearFlag[k] || cr
			return
		}
		// cheap rejection by the triangle's box first
		if outsideBox(x, a, b, c, r) {
			cr := crossedTriangle([4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
			sc.nearFlag[k], sc.crossFlag[k] = cr, cr
			if sc.sides && !cr {
				// the box's gap is a lower bound of the distance
				g := max(min(a.X, b.X, c.X)-x.X, x.X-max(a.X, b.X, c.X),
					min(a.Y, b.Y, c.Y)-x.Y, x.Y-max(a.Y, b.Y, c.Y),
					min(a.Z, b.Z, c.Z)-x.Z, x.Z-max(a.Z, b.Z, c.Z))
				sc.keep[k] = keepOf(vs, g*g, r) & keepFar
			}
			return
		}
		// r or more off the triangle's plane on its side: neither near
		// nor crossed
		nt := b.Sub(a).Cross(c.Sub(a))
		if sd := x.Sub(a).Dot(nt) * p.side; sd > 0 && sd*sd >= r*r*apartMargin*apartMargin*nt.LenSq() {
			sc.nearFlag[k], sc.crossFlag[k] = false, false
			if sc.sides {
				sc.keep[k] = keepOf(vs, sd*sd/nt.LenSq(), r) & keepFar
			}
			return
		}
		u, v, ww := closestOnTriangle(x, a, b, c)
		d := x.Sub(a.Scale(u).Add(b.Scale(v)).Add(c.Scale(ww)))
		cr := x.Sub(a).Dot(nt)*p.side < 0 &&
			(u > 0 && v > 0 && ww > 0 || crossedTriangle([4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side))
		sc.nearFlag[k], sc.crossFlag[k] = cr || d.LenSq() < r*r, cr
		if sc.sides && !cr {
			sc.keep[k] = keepOf(vs, d.LenSq(), r)
		}
		return
	}
	p := &sc.ee[k-nvt]
	e0, e1 := [2]int32{vs[0], vs[1]}, [2]int32{vs[2], vs[3]}
	if !sc.sides && (still(vs) || !sc.nearFlag[k] && !moved(vs)) {
		return
	}
	if sc.sides {
		if skip(vs) {
			return
		}
		n := edgeEdgeDir([4]vec.Vec3{prev[e0[0]], prev[e0[1]], prev[e1[0]], prev[e1[1]]}, p.n)
		if n != p.n {
			p.n, sc.budget[k] = n, 0
		}
		sc.keep[k] = 0
	}
	a, b, c, d := pos[e0[0]], pos[e0[1]], pos[e1[0]], pos[e1[1]]
	r := p.h + margin*sc.h
	if crossOnly || !sc.sides && sc.nearFlag[k] {
		// the crossed flag as below, the edges apart along the
		// remembered direction first (then not crossed either way); a
		// near pair stays near, as above
		g := crossReach * sc.h
		cr := false
		if apartBy(a, b, c, d, p.n) < 0 && !boxesApart(a, b, c, d, g) {
			s, t := closestSegments(a, b, c, d)
			const eps = 1e-6
			cr = a.Lerp(b, s).Sub(c.Lerp(d, t)).Dot(p.n) < 0 && s > eps && s < 1-eps && t > eps && t < 1-eps
		}
		sc.crossFlag[k] = cr
		sc.nearFlag[k] = sc.nearFlag[k] || cr
		return
	}
	// cheap rejection by the edges' boxes first: neither near nor, with
	// relative motion clamped to about 2h per substep, crossed
	if g := crossReach * sc.h; boxesApart(a, b, c, d, g) {
		sc.nearFlag[k], sc.crossFlag[k] = false, false
		if sc.sides {
			sc.keep[k] = keepOf(vs, g*g, r) & keepFar
		}
		return
	}
	// r or more apart along the remembered direction: neither near
	// nor crossed
	if sep := apartBy(a, b, c, d, p.n); sep >= r*apartMargin {
		sc.nearFlag[k], sc.crossFlag[k] = false, false
		if sc.sides {
			sc.keep[k] = keepOf(vs, sep*sep, r) & keepFar
		}
		return
	}
	s, t := closestSegments(a, b, c, d)
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	const eps = 1e-6
	cr := diff.Dot(p.n) < 0 && s > eps && s < 1-eps && t > eps && t < 1-eps
	sc.nearFlag[k], sc.crossFlag[k] = cr || diff.LenSq() < r*r, cr
	if sc.sides && !cr {
		sc.keep[k] = keepOf(vs, diff.LenSq(), r)
	}
}

// outsideBox reports whether x lies more than r outside the bounding box
// of a, b and c.
func outsideBox(x, a, b, c vec.Vec3, r float64) bool {
	return x.X < min(a.X, b.X, c.X)-r || x.X > max(a.X, b.X, c.X)+r ||
		x.Y < min(a.Y, b.Y, c.Y)-r || x.Y > max(a.Y, b.Y, c.Y)+r ||
		x.Z < min(a.Z, b.Z, c.Z)-r || x.Z > max(a.Z, b.Z, c.Z)+r
}

// boxesApart reports whether the bounding boxes of segments ab and cd are
// more than g apart.
func boxesApart(a, b, c, d vec.Vec3, g float64) bool {
	return min(a.X, b.X) > max(c.X, d.X)+g || min(c.X, d.X) > max(a.X, b.X)+g ||
		min(a.Y, b.Y) > max(c.Y, d.Y)+g || min(c.Y, d.Y) > max(a.Y, b.Y)+g ||
		min(a.Z, b.Z) > max(c.Z, d.Z)+g || min(c.Z, d.Z) > max(a.Z, b.Z)+g
}
