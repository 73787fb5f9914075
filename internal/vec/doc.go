// Package vec is the leaf math package shared by every drape package:
// Vec3, Mat4 and Quat as small value types whose methods read like algebra.
//
// It imports only the standard library's math package; nothing else may be
// added here.
package vec
