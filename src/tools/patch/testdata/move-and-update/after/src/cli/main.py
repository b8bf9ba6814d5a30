def greet(name):
    print(f"Hello, {name}!")
    return name
