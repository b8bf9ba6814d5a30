def handler(event):
    body = event["body"]
    return {"status": 200, "body": body}
