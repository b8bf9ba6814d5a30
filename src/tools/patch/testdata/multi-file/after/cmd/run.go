package main

import "fmt"

func run() {
	fmt.Println("running")
}
