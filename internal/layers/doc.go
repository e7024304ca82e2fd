// Package layers holds no code, only the test that keeps the house's
// import arrows pointing down: the session model sits below the codecs,
// and the codecs below the migration stages that are built on them, so
// that a reader can follow any type to where its meaning lives.
package layers
