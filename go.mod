module github.com/nablasd/nablasd

go 1.26.8

require github.com/cockroachdb/datadriven v1.0.3

require github.com/pmezard/go-difflib v1.0.0 // indirect
