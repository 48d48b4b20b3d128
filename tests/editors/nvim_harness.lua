-- What the headless Neovim test scripts share: reading their environment, and writing their
-- JSON result to NIB_OUT before quitting. Loaded with dofile() from the script's own folder.
local M = {}

function M.env(name)
  local value = os.getenv(name)
  assert(value, name .. " is not set")
  return value
end

function M.finish(result)
  local f = assert(io.open(M.env("NIB_OUT"), "w"))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qall!")
end

return M
