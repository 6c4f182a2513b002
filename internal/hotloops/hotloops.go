// Package hotloops writes the profile that makes the Go compiler align a
// package's loops: every function of its source marked hot.
//
// The Go compiler places a loop's first instruction wherever the code
// before it ends, except in a function a profile (PGO) says is hot: there
// it starts a loop header on a new 64-byte line when fewer than 32 bytes of
// the current one remain. A small loop that straddles two lines costs the
// CPU's front end a second fetch per iteration. On the project's 2-core Intel
// VM, a loop storing a constant into a slice ran 1.85× slower per
// element when it straddled a line, and the same kernel's loops straddled
// in some builds and not in others. So every kernel's speed was a lottery
// on where its loops fell, and a parallel kernel's workers could lose what
// a second goroutine gained: VVA's generated fill on two goroutines took
// 0.97 of its serial kernel's time, and 0.60 with its loops aligned.
//
// Profile is therefore the profile to compile a package with (go build
// -gcflags=pkg=-pgoprofile=file): every function of the source, its
// methods and its closures, named as the compiler names them (Names), is
// the callee of an equal share of calls from a caller that does not
// exist. It is the preprocessed form of a profile (go tool preprofile's,
// "GO PREPROFILE V1"), which the compiler reads and the go command's -pgo
// flag does not (and -pgo would rebuild the standard library too, which a
// plugin must share with its host). A callee marked hot also gets a
// larger inlining budget, but no call site is hot (the caller is in no
// package), so nothing is inlined that would not be without the profile:
// what changes is the loops' alignment. The JIT builds every plugin so
// (internal/jit), and `make bench` the benchmark binaries, hand-written
// kernels and all (bench/cmd/hotprofile), so that a ratio compares the
// code and not where the linker put it.
package hotloops

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
)

// caller is the caller of every edge of Profile: a name no package
// defines.
const caller = "nablasd.hotloops.caller"

// Profile is the preprocessed profile marking the functions names hot
// (above), each once.
func Profile(names []string) []byte {
	var b bytes.Buffer
	b.WriteString("GO PREPROFILE V1\n")
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue // the compiler refuses an edge twice
		}
		seen[n] = true
		fmt.Fprintf(&b, "%s\n%s\n0 1\n", caller, n)
	}
	return b.Bytes()
}

// Names are the linker names of src's functions, methods and
// closures in package path pkg: pkg.F, pkg.T.M, pkg.(*T).M, and the
// closures of each, pkg.F.func1, pkg.F.func2, ..., those nested in a
// closure pkg.F.func1.1, numbered in the order they appear, as the
// compiler numbers them.
func Names(pkg string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "source.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || fd.Recv == nil && fd.Name.Name == "init" {
			continue // init functions run once (and are named init.0, init.1, ...)
		}
		name := pkg + "." + fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = pkg + "." + receiver(fd.Recv.List[0].Type) + "." + fd.Name.Name
		}
		names = append(names, name)
		names = closureNames(names, name+".func", fd.Body)
	}
	return names, nil
}

// closureNames appends the names of the closures directly in body, prefix
// followed by their number from 1, and of those nested in each, its name
// followed by "." and their number.
func closureNames(names []string, prefix string, body ast.Node) []string {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		lit, ok := x.(*ast.FuncLit)
		if !ok {
			return true
		}
		n++
		name := prefix + strconv.Itoa(n)
		names = append(names, name)
		names = closureNames(names, name+".", lit.Body)
		return false
	})
	return names
}

// receiver is a method's receiver type as the linker writes it: T or (*T),
// without type parameters.
func receiver(e ast.Expr) string {
	star := false
	if s, ok := e.(*ast.StarExpr); ok {
		star, e = true, s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	name := "?"
	if id, ok := e.(*ast.Ident); ok {
		name = id.Name
	}
	if star {
		return "(*" + name + ")"
	}
	return name
}

// PackageNames are the Names of the functions of every file of a package
// whose import path is pkg: files, its non-test Go files (build
// constraints aside: a function a build leaves out is not in it to align).
func PackageNames(pkg string, files []string) ([]string, error) {
	var names []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ns, err := Names(pkg, src)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		names = append(names, ns...)
	}
	return names, nil
}
