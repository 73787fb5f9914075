// Package render is drape's preview rasteriser: a small CPU renderer that
// turns a baked cloth frame (plus optional collider meshes and a ground
// plane) into an image a person can look at, and packs several frames into a
// PNG contact sheet or an animated GIF.
//
// It follows the software rasteriser of seed 000: a perspective camera,
// triangles rasterised with edge functions over their clamped bounding box,
// a z-buffer holding perspective-correct inverse depth, near-plane clipping,
// two-sided shading (front and back colours, the back face lit with its
// normal flipped), smooth vertex normals, Phong lighting (ambient 0.15,
// diffuse 0.75, specular 0.25 with exponent 32), ACES filmic tone mapping
// (Narkowicz 2015 fit) and sRGB encoding over a vertical gradient
// background. Beyond the seed, the key light casts shadows through an
// orthographic shadow map, and an optional checkered ground plane fades
// into the background.
//
// Shading is deferred: the rasteriser writes depth, normal and material per
// sample, and one pass then shades each visible sample once, so overdraw
// costs almost nothing. A Renderer owns these buffers and reuses them, so
// rendering the frames of a bake allocates nothing after the first frame.
//
// Output is deterministic: the same input gives byte-identical pixels (and so
// byte-identical PNG and GIF files). Rendering is single-threaded.
//
// render imports only internal/vec and the standard library; it does no I/O
// except writing to an io.Writer it is given (EncodeGIF). It must not import
// meshio, solver, sdf, bake or cmd: callers convert their meshes into
// Surfaces.
package render
