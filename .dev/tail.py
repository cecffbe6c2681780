import json,sys,collections
d=json.load(open(sys.argv[1]))
ev=d['traceEvents'] if isinstance(d,dict) else d
ij=[e for e in ev if e.get('name')=='install job'][0]
t0=ij['ts']; t1=t0+ij['dur']
idle=collections.defaultdict(list)
for e in ev:
    if e.get('ph')=='X' and e['name']=='idle':
        idle[e['tid']].append((e['ts'],e['ts']+e['dur']))
tids=sorted(set(e['tid'] for e in ev if e.get('ph')=='X' and e['tid']&0xffff and e['tid']<0x20000))
tids=sorted(set(e['tid'] for e in ev if e.get('name') in ('idle','stolen','join b','published')))
print(len(tids),'workers; call',t1-t0)
B=int(sys.argv[2]) if len(sys.argv)>2 else 20
pub=collections.Counter()
for e in ev:
    if e.get('name')=='published': pub[(e['tid']&0xffff)-1]+=1
for b in range(B):
    a=t0+(t1-t0)*b/B; z=t0+(t1-t0)*(b+1)/B
    busy=0.0
    for t in tids:
        idl=sum(max(0,min(z,y)-max(a,x)) for x,y in idle[t])
        busy+= (z-a-idl)/(z-a)
    st=sum(1 for e in ev if e.get('name')=='stolen' and a<=e['ts']<z)
    p0=sum(1 for e in ev if e.get('name')=='published' and a<=e['ts']<z and (e['tid']&0xffff)-1==0)
    print(f"{a-t0:7.0f}-{z-t0:7.0f} busy {busy:6.1f} steals {st:4d} w0-pub {p0}")
print('top publishers',pub.most_common(5))
