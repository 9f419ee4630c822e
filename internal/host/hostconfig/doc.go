// Package hostconfig resolves the configuration a session runs with: it
// reads the user's files, picks the provider, model, base URL and key by
// precedence (flag > environment > project > user file > default), and
// lists every effective value with where it came from. It opens the
// chosen provider; it must not run turns, touch transcripts or know about
// sessions — package host does that.
package hostconfig
