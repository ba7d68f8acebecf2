#include "core/distribute/testing/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tfd {
namespace testing {

absl::StatusOr<std::vector<int>> PickFreePorts(int n) {
  // All sockets stay open until every port is picked, so the n are distinct.
  std::vector<int> sockets;
  std::vector<int> ports;
  absl::Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
      status = absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
      break;
    }
    sockets.push_back(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      status = absl::InternalError(absl::StrCat("binding port 0: ", std::strerror(errno)));
      break;
    }
    ports.push_back(ntohs(address.sin_port));
  }
  for (int fd : sockets) close(fd);
  if (!status.ok()) return status;
  return ports;
}

}  // namespace testing
}  // namespace tfd
