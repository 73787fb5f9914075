package chol

// order returns a fill-reducing elimination order of the graph whose
// edges are (row[k], col[k]): nested dissection (George 1973) with level
// structure separators. A part is split at the middle level of a
// breadth-first search from a pseudo-peripheral vertex (Gibbs, Poole,
// Stockmeyer 1976); both halves are ordered first, the separator last,
// so eliminating one half never fills the other. On a cloth grid of n
// vertices a separator is a line of about √n vertices, and L holds about
// 30 entries per vertex at 64 x 64 against 64 for a banded order.
func order(n int, row, col []int32) []int32 {
	start := make([]int32, n+1)
	for k := range row {
		start[row[k]+1]++
		start[col[k]+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	adj := make([]int32, start[n])
	fill := append([]int32(nil), start[:n]...)
	for k := range row {
		a, b := row[k], col[k]
		adj[fill[a]] = b
		fill[a]++
		adj[fill[b]] = a
		fill[b]++
	}
	d := &dissection{start: start, adj: adj, part: make([]int32, n), level: make([]int32, n)}
	verts := make([]int32, n)
	for i := range verts {
		verts[i] = int32(i)
	}
	d.dissect(verts)
	return d.out
}

// leafSize is the part size below which a part is ordered as found.
const leafSize = 48

type dissection struct {
	start, adj []int32
	part       []int32 // the part id of each vertex
	level      []int32 // scratch: BFS level, -1 unvisited
	next       int32   // the next unused part id
	out        []int32
	queue      []int32
}

// dissect appends an order of verts (all of one part, with part id
// d.part of its first vertex) to d.out.
func (d *dissection) dissect(verts []int32) {
	if len(verts) <= leafSize {
		d.out = append(d.out, verts...)
		return
	}
	// one component at a time: a BFS from a vertex reaches its component
	comp := d.bfs(verts, verts[0])
	if len(comp) < len(verts) {
		d.split(verts, comp)
		return
	}
	far := d.bfs(verts, comp[len(comp)-1])
	far = d.bfs(verts, far[len(far)-1])
	// far is in BFS order from a pseudo-peripheral vertex; levels in d.level
	half := len(far) / 2
	mid := d.level[far[half]]
	var a, b, sep []int32
	for _, v := range far {
		switch l := d.level[v]; {
		case l < mid:
			a = append(a, v)
		case l > mid:
			b = append(b, v)
		default:
			sep = append(sep, v)
		}
	}
	if len(a) == 0 || len(b) == 0 {
		d.out = append(d.out, far...)
		return
	}
	ida, idb, ids := d.next+1, d.next+2, d.next+3
	d.next += 3
	for _, v := range a {
		d.part[v] = ida
	}
	for _, v := range b {
		d.part[v] = idb
	}
	for _, v := range sep {
		d.part[v] = ids
	}
	d.dissect(a)
	d.dissect(b)
	d.out = append(d.out, sep...)
}

// split dissects verts, which has more than one component, component by
// component; comp is the component of verts[0].
func (d *dissection) split(verts, comp []int32) {
	id := d.part[verts[0]]
	for len(comp) > 0 {
		d.next++
		for _, v := range comp {
			d.part[v] = d.next
		}
		d.dissect(comp)
		comp = nil
		for _, v := range verts {
			if d.part[v] == id {
				comp = d.bfs(verts, v)
				break
			}
		}
	}
}

// bfs returns the vertices of src's part reachable from src in
// breadth-first order and sets their d.level; verts is the part, whose
// levels it resets first.
func (d *dissection) bfs(verts []int32, src int32) []int32 {
	for _, v := range verts {
		d.level[v] = -1
	}
	id := d.part[src]
	q := d.queue[:0]
	q = append(q, src)
	d.level[src] = 0
	for h := 0; h < len(q); h++ {
		v := q[h]
		for _, u := range d.adj[d.start[v]:d.start[v+1]] {
			if d.part[u] == id && d.level[u] < 0 {
				d.level[u] = d.level[v] + 1
				q = append(q, u)
			}
		}
	}
	d.queue = q
	return append([]int32(nil), q...)
}
