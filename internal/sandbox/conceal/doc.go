// Package conceal builds what a command nobody approved (the auto-run
// profile) cannot see: it covers the home folders and the shared
// folders where other projects' files lie, the workspace's protected
// files, and its repositories' configuration (copies without remotes or
// credentials), in the command's own mount namespace. It plans what to
// hide before the namespaces are made, because reading configuration
// runs git, and applies the plan inside them. It never changes a file:
// everything it does is a mount that ends with the namespace.
package conceal
