// Package docs holds no code: its tests check that the configuration
// examples in the operator documentation load in the real tools, that every
// relative link and docs/ path in README.md and docs/ names a file of the
// repository, and that the documentation names no outside notes or tracker numbers.
package docs
