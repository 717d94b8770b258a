-- wrk script: real-looking traffic for scripts/bench-http. Every request
-- comes through a proxy on loopback that names its client in
-- X-Forwarded-For: 8,192 client addresses over 2,048 networks, six browser
-- agents, seven referring sites (and a third of loads with none), and one
-- load in four from a tagged link. Each agent's requests carry what that
-- browser sends with them over HTTPS (the proxy says X-Forwarded-Proto:
-- https): the Chromiums their client hints, every one its fetch metadata.
-- The requests are made once, in init, so
-- wrk spends no time making them; they are sent in turn.
--
--   wrk -s scripts/bench-http-traffic.lua http://127.0.0.1:PORT/about
--
-- With the argument `visits` (`wrk … URL -- visits`), the shape most sites
-- see: many more visitors than requests a visitor, 65,536 addresses over
-- 16,384 networks, each making one to three requests in a row; a second
-- argument sets how many addresses (`-- visits 100000`), a quarter as many
-- networks.

local agents = {
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
  "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
}

-- Each agent's client hints (brands, mobile, platform), or none.
local hints = {
  { '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"', "?0", '"Windows"' },
  { '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"', "?0", '"macOS"' },
  false,
  false,
  { '"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"', "?0", '"Windows"' },
  { '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"', "?1", '"Android"' },
}

local referrers = {
  "https://www.google.com/",
  "https://www.bing.com/",
  "https://duckduckgo.com/",
  "https://news.ycombinator.com/item?id=42000000",
  "https://www.reddit.com/r/rust/comments/abc/",
  "https://www.linkedin.com/feed/",
  "https://t.co/AbCdEf",
}

local tags = {
  "?utm_source=newsletter&utm_medium=email&utm_campaign=december",
  "?ref=producthunt",
  "?utm_source=mastodon",
}

local addresses = 8192
local networks = 2048
local made = {}
local next_one = 1

-- A fixed pseudo-random sequence, so every run (and both servers) get the
-- same requests.
local state = 12345
local function draw(n)
  state = (state * 1103515245 + 12345) % 2147483648
  return state % n + 1
end

local sequence = {}

init = function(args)
  local visits = args[1] == "visits"
  if visits then
    addresses = tonumber(args[2]) or 65536
    networks = math.floor(addresses / 4)
  end
  local json = wrk.path:find("^/api/") ~= nil
  for i = 1, addresses do
    local network = (i - 1) % networks
    local address = string.format("%d.%d.%d.%d",
      23 + network % 100, 1 + math.floor(network / 100), 7, 1 + math.floor((i - 1) / networks))
    local agent = draw(#agents)
    local headers = {
      ["Host"] = "example.com",
      ["User-Agent"] = agents[agent],
      ["X-Forwarded-For"] = address,
      ["X-Forwarded-Proto"] = "https",
      ["Accept-Language"] = "en-GB,en;q=0.9",
    }
    if hints[agent] then
      headers["Sec-CH-UA"] = hints[agent][1]
      headers["Sec-CH-UA-Mobile"] = hints[agent][2]
      headers["Sec-CH-UA-Platform"] = hints[agent][3]
    end
    if json then
      headers["Accept"] = "application/json"
      headers["Sec-Fetch-Site"] = "same-origin"
      headers["Sec-Fetch-Mode"] = "cors"
      headers["Sec-Fetch-Dest"] = "empty"
    else
      headers["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
      headers["Sec-Fetch-Site"] = "cross-site"
      headers["Sec-Fetch-Mode"] = "navigate"
      headers["Sec-Fetch-Dest"] = "document"
    end
    local r = draw(10)
    if r <= #referrers then
      headers["Referer"] = referrers[r]
    end
    local path = wrk.path
    if draw(4) == 1 then
      path = path .. tags[draw(#tags)]
    end
    made[i] = wrk.format("GET", path, headers)
    -- Each visitor's requests in a row: one, or one to three for visits.
    for _ = 1, (visits and draw(3) or 1) do
      sequence[#sequence + 1] = made[i]
    end
  end
end

request = function()
  local one = sequence[next_one]
  next_one = next_one % #sequence + 1
  return one
end
