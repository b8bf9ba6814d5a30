def area(w, h):   
    result = abs(w * h)
    return result	
