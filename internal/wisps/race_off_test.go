//go:build !race

package wisps

const raceDetector = false
