// Where ccsim's shipped data (topologies/, models/, scenarios/, scripts/) lives at run time.
#pragma once
#include <string>

namespace ccsim {

// $CCSIM_DATA_DIR when set; else <prefix>/share/ccsim when the binary runs from an installed <prefix>/bin;
// else the source tree the binary was built from (a build-tree binary). Never empty.
const std::string& data_dir();

} // namespace ccsim
