package meshio

import "github.com/qmuntal/gltf"

// gltfSource is what the glTF writer needs of a glTF input: the document as
// decoded, and for each Mesh primitive the node, mesh and primitive it came
// from.
type gltfSource struct {
	doc *gltf.Document
	// prims[i] locates Mesh.Primitives[i] in doc.
	prims []gltfPrimRef
	// images holds the bytes of each image stored as a file beside the
	// glTF, by image index, read (confined) with the glTF; the writer
	// embeds them.
	images map[int][]byte
}

// gltfPrimRef locates one render primitive in the source document.
type gltfPrimRef struct {
	Node, Mesh, Primitive int
}
