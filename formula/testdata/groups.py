# groups.py writes groups.csv, the small data set of formula's Example_run
# (python3 formula/testdata/groups.py > formula/testdata/groups.csv):
# y = 1 + 0.5 x + a_g + 0.5 ε, 60 rows, 6 groups s1 … s6 with intercepts a.
import random
random.seed(7)
a = [-1, -0.5, 0, 0.3, 0.8, 1.2]
print("y,x,g")
for i in range(60):
    g = random.randrange(6)
    x = round(random.gauss(0, 1), 3)
    y = round(1 + 0.5 * x + a[g] + 0.5 * random.gauss(0, 1), 3)
    print(f"{y},{x},s{g+1}")
