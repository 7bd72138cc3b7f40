"""Projects a spider JSON report on the numbers SPIDER v1.0 printed:
events, data candidates/instances/groups, message candidates/instances/
groups, handler instances/groups."""
import json, sys
d = json.load(sys.stdin)
s = d["summary"]
print(s["events"], s["candidates"]["data"], s["instances"]["data"], len(d["data_races"]),
      s["candidates"]["message"], s["instances"]["message"], len(d["message_races"]),
      s["instances"]["handler"], len(d["handler_races"]))
