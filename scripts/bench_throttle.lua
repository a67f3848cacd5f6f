-- A small mixed workload for the Lua interpreter: table sort, integer
-- loops, recursion, string building, closures, coroutines, pcall.
local N = 200000
local t = {}
local seed = 42
for i = 1, N do
  seed = (seed * 1103515245 + 12345) % 2147483648
  t[i] = seed % 100000
end
table.sort(t)
local s = 0
for i, x in ipairs(t) do s = s + (x // 7) % 13 + (i & 3) end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local parts = {}
for i = 1, 20000 do parts[#parts + 1] = tostring(i % 97) end
local str = table.concat(parts, ",")
local count = 0
for w in string.gmatch(str, "%d+") do count = count + 1 end
local co = coroutine.wrap(function() for i = 1, 1000 do coroutine.yield(i) end end)
local cs = 0
for _ = 1, 1000 do cs = cs + co() end
local ok = pcall(error, "x")
local acc = 0
local add = function(a, b) return a + b end
for i = 1, 300000 do acc = add(acc, i % 5) end
print(t[1], t[N], s, fib(24), #str, count, cs, ok, acc)
