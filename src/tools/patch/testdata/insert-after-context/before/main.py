import os
import sys

def main():
    run()
