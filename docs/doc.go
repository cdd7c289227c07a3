// Package docs holds no code: its tests check that the configuration
// examples in the operator documentation load in the real tools.
package docs
