# tflops_vs_s.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_vs_s.gp (reads tflops_vs_s.dat, writes tflops_vs_s.png)
set terminal pngcairo size 900,940 enhanced font 'DejaVu Sans,10'
set output 'tflops_vs_s.png'
set multiplot layout 2,1 title "TFLOPS against sequence length S: newest ok record of each phase and shape, headline regime at device time\nhollow points: span only (busy time not recorded)" noenhanced
set logscale x 2
set xrange [320:18022.4]
set xtics ("512" 512, "1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192) noenhanced
set xlabel 'sequence length S (B shrinks as S grows; shapes in the report''s table)' noenhanced
set ylabel 'TFLOPS'
unset key
set grid lc rgb '#dddddd'

unset label
set title 'D = 64'
set logscale y
set yrange [1:1000]
set label '3c' at 4423.68,64.0192387 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 4423.68,80.9674581 left font ',8' tc rgb '#d62728' noenhanced
set label 'd2' at 8847.36,4.70271712 left font ',8' tc rgb '#17becf' noenhanced
set label 'd1' at 8847.36,5.94769727 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd3' at 8847.36,13.4560529 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,17.0183592 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,21.5237375 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,27.2218532 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,53.251072 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,96.5792194 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,136.343806 left font ',8' tc rgb '#ff9896' noenhanced
set label 'sdpa-flash' at 8847.36,282.239292 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'd4' at 8847.36,356.958292 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-cudnn' at 8847.36,451.458126 left font ',8' tc rgb '#98df8a' noenhanced
set label '5' at 8847.36,570.975501 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 0 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 0 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 1 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 1 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 2 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 2 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 3 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 3 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 4 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 4 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 5 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 5 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 6 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 6 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 7 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 7 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 8 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 8 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 9 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 9 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 10 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 10 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 11 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 11 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 12 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 12 using 1:2:5 with points pt variable ps 1.1 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 13 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 13 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 14 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 14 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5'

unset label
set title 'D = 128'
set logscale y
set yrange [1:1000]
set label 'd1' at 8847.36,2.0244879 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd2' at 8847.36,2.56044343 left font ',8' tc rgb '#17becf' noenhanced
set label 'd3' at 8847.36,12.6814149 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,16.0386463 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,20.284659 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,25.6547455 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,57.3856885 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,104.87785 left font ',8' tc rgb '#e377c2' noenhanced
set label '3c' at 8847.36,132.642829 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 8847.36,167.758207 left font ',8' tc rgb '#d62728' noenhanced
set label 'sdpa-efficient' at 8847.36,212.169902 left font ',8' tc rgb '#ff9896' noenhanced
set label 'd4' at 8847.36,288.727136 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-flash' at 8847.36,365.163703 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'sdpa-cudnn' at 8847.36,533.619844 left font ',8' tc rgb '#98df8a' noenhanced
set label '5' at 8847.36,674.888413 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 15 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 15 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 16 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 16 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 17 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 17 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 18 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 18 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 19 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 19 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 20 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 20 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 21 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 21 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 22 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 22 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 23 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 23 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 24 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 24 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 25 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 25 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 26 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 26 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 27 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 27 using 1:2:5 with points pt variable ps 1.1 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 28 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 28 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 29 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 29 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5'
unset multiplot
