module github.com/nablasd/nablasd

go 1.26.8

require (
	github.com/cockroachdb/datadriven v1.0.3
	github.com/dolthub/swiss v0.2.1
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/dolthub/maphash v0.1.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
)
