def greet(name):
    print("Hi")
    return name
