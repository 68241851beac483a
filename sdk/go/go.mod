module github.com/carteiro/carteiro/sdk/go

go 1.26
