-- The quick start through the library from LuaJIT's FFI, with no C of its own: configure on
-- the embedded demo, identify, set an attribute, register a placement the user's audience does
-- not match, run the feature. LuaJIT cannot be entered from another thread, so the bridge is
-- opened without an output function and each message is taken with superwall_bridge_receive
-- on this thread. Prints what the README's quick start prints; exits 0 when every answer is as
-- expected. Usage: luajit quick_start.lua LIBRARY DATA_DIRECTORY
local ffi = require("ffi")

ffi.cdef([[
typedef struct superwall_bridge superwall_bridge;
typedef void (*superwall_bridge_output)(void *context, const char *message, size_t length);
superwall_bridge *superwall_bridge_open(const char *options_json, superwall_bridge_output output,
                                        void *context, char *error, size_t error_capacity);
int superwall_bridge_send(superwall_bridge *bridge, const char *message, size_t length);
int superwall_bridge_receive(superwall_bridge *bridge, int timeout_ms, const char **message, size_t *length);
int superwall_bridge_close(superwall_bridge *bridge);
]])

local RECEIVED, ENDED, TIMED_OUT = 0, 1, 4
local library_path, data_directory = arg[1], arg[2]
assert(library_path and data_directory, "usage: luajit quick_start.lua LIBRARY DATA_DIRECTORY")
local library = ffi.load(library_path)

local error_text = ffi.new("char[512]")
local bridge = library.superwall_bridge_open(nil, nil, nil, error_text, 512)
assert(bridge ~= nil, ffi.string(error_text))

local message = ffi.new("const char *[1]")
local length = ffi.new("size_t[1]")
local next_id = 1

--- Sends a request and returns its answer's text, setting aside the notifications before it.
local function call(method, params)
    local id = next_id
    next_id = next_id + 1
    local request = string.format('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}', id, method, params)
    assert(library.superwall_bridge_send(bridge, request, #request) == 0, method .. ": not taken")
    local marker = string.format('"id":%d,', id)
    while true do
        local code = library.superwall_bridge_receive(bridge, 30000, message, length)
        assert(code ~= TIMED_OUT, method .. ": no answer within 30 s")
        assert(code == RECEIVED, method .. ": receive returned " .. code)
        local text = ffi.string(message[0], length[0])
        if text:find(marker, 1, true) and not text:find('"method"', 1, true) then
            assert(not text:find('"error":{', 1, true), method .. " failed: " .. text)
            return text
        end
    end
end

local function expect(text, part)
    assert(text:find(part, 1, true), "expected " .. part .. " in " .. text)
end

call("initialize", '{"protocolVersion":"1.0","client":{"name":"luajit-quick-start","version":"1.0"}}')
expect(call("configure", string.format(
    '{"apiKey":"pk_demo","options":{"configSource":{"type":"embedded"},"dataDirectory":"%s"}}', data_directory)),
    '"configured"')
call("identify", '{"userId":"runner_042"}')
call("setUserAttributes", '{"attributes":{"plan":"free"}}')
local registered = call("register", '{"placement":"workout_shared","hasFeature":true}')
expect(registered, '"noAudienceMatch"')
print("skipped: noAudienceMatch")
expect(registered, '"featureGranted":true')
print("run the feature")
call("shutdown", "{}")
local exit = '{"jsonrpc":"2.0","method":"exit"}'
assert(library.superwall_bridge_send(bridge, exit, #exit) == 0)
-- What the bridge sends before it ends, then the end.
while library.superwall_bridge_receive(bridge, 30000, message, length) == RECEIVED do end
assert(library.superwall_bridge_receive(bridge, 0, message, length) == ENDED)
local status = library.superwall_bridge_close(bridge)
assert(status == 0, "close returned " .. status)
